-- Sessions under control (docs/security.md, "Sessions"): each session
-- has an id its user ends it by (the token's hash is never shown), the
-- browser's user agent and the client's address it began from, and when
-- it was last seen (written at most once a minute; NULL: not since it
-- began, as an instance of the release before writes it).
ALTER TABLE sessions
  ADD COLUMN id uuid NOT NULL DEFAULT gen_random_uuid(),
  ADD COLUMN user_agent text NOT NULL DEFAULT '',
  ADD COLUMN client_address text NOT NULL DEFAULT '',
  ADD COLUMN last_seen_at timestamptz;
CREATE UNIQUE INDEX sessions_by_id ON sessions (id);

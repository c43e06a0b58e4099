-- Sessions under control (docs/security.md, "Sessions"): each session
-- has an id its user ends it by (the token's hash is never shown), the
-- browser's user agent and the client's address it began from, and when
-- it was last seen (written at most once a minute; NULL: not since it
-- began).
ALTER TABLE sessions ADD COLUMN id BLOB;
ALTER TABLE sessions ADD COLUMN user_agent TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN client_address TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN last_seen_at INTEGER;
UPDATE sessions SET id = randomblob(16);
CREATE UNIQUE INDEX sessions_by_id ON sessions (id);
-- SQLite takes no random default in ALTER TABLE: a session an instance
-- of the release before starts gets its id here.
CREATE TRIGGER sessions_id AFTER INSERT ON sessions WHEN NEW.id IS NULL
BEGIN
  UPDATE sessions SET id = randomblob(16) WHERE token_hash = NEW.token_hash;
END;

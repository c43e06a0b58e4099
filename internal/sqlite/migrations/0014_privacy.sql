-- Privacy (docs/api.md, "Privacy: erasure and
-- retention").

-- How long an organization's events are kept, by occurredAt.
ALTER TABLE organizations ADD COLUMN retention_days INTEGER NOT NULL DEFAULT 400;

-- SQLite hands out the largest rowid + 1: deleting the event (or command
-- change) with the largest position would hand it out again, after a
-- feed consumer had passed it. Erasure and retention move that one row to
-- this internal organization instead, with its personal fields cleared:
-- it keeps the high-water mark, and no organization's read can see it
-- (docs/decisions.md, "Deleting without reusing positions"). Its id is 16
-- zero bytes, which no organization has.
INSERT INTO organizations (seq, id, name, created_at) VALUES (0, zeroblob(16), 'positions of deleted rows', 0);

-- The platform's right-to-erasure webhook: one per organization, found by
-- the hash of its opaque token; the token and the HMAC secret are sealed.
CREATE TABLE erasure_integrations (
  org           INTEGER PRIMARY KEY REFERENCES organizations(seq),
  token_hash    BLOB NOT NULL UNIQUE,
  sealed_token  BLOB NOT NULL,
  sealed_secret BLOB NOT NULL,
  created_at    INTEGER NOT NULL
) STRICT;

-- Every request the webhook received for an organization, and what it did.
CREATE TABLE erasure_requests (
  seq             INTEGER PRIMARY KEY,
  org             INTEGER NOT NULL REFERENCES organizations(seq),
  id              BLOB NOT NULL,
  notification_id TEXT NOT NULL,
  received_at     INTEGER NOT NULL,
  outcome         TEXT NOT NULL, -- gatehouse.ErasureOutcome
  detail          TEXT NOT NULL,
  user_hash       TEXT NOT NULL,
  events          INTEGER NOT NULL,
  commands        INTEGER NOT NULL
) STRICT;
CREATE INDEX erasure_requests_org ON erasure_requests (org, seq);
-- A notification is erased once: a replay of it changes nothing.
CREATE UNIQUE INDEX erasure_requests_done ON erasure_requests (org, notification_id) WHERE outcome = 'erased';

-- Erasure finds a player's commands (PLAYER unlocks).
CREATE INDEX commands_by_player ON commands (org, platform_user_id) WHERE platform_user_id IS NOT NULL;

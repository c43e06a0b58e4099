-- Lockdowns (docs/api.md, "Lockdowns"): an operator's one action that
-- denies every access point of a location, a universe or the whole
-- organization with reason LOCKDOWN until released or until `until`.

CREATE TABLE lockdowns (
  org           INTEGER NOT NULL REFERENCES organizations(seq),
  id            BLOB NOT NULL,
  scope         TEXT NOT NULL,   -- ORGANIZATION, UNIVERSE or LOCATION
  universe_id   TEXT,            -- UNIVERSE
  location_id   BLOB,            -- LOCATION
  reason        TEXT NOT NULL,
  started_at    INTEGER NOT NULL,
  until         INTEGER,
  released_at   INTEGER,
  requested_by  BLOB,            -- a dashboard user
  issued_by_key BLOB,            -- an API key
  released_type TEXT,            -- user, key or system
  released_by   BLOB,            -- the user or key
  PRIMARY KEY (org, id)
) STRICT, WITHOUT ROWID;
CREATE INDEX lockdowns_page ON lockdowns (org, started_at DESC, id DESC);
CREATE INDEX lockdowns_running ON lockdowns (org) WHERE released_at IS NULL;
CREATE INDEX lockdowns_until ON lockdowns (until) WHERE released_at IS NULL AND until IS NOT NULL;

-- Starts and releases are a feed of their own, for lockdown.updated
-- deliveries: one row each, in commit order (one writer).
CREATE TABLE lockdown_changes (
  seq         INTEGER PRIMARY KEY,
  org         INTEGER NOT NULL,
  lockdown_id BLOB NOT NULL,
  released    INTEGER NOT NULL
) STRICT;
CREATE INDEX lockdown_changes_org ON lockdown_changes (org, seq);

-- A LOCKDOWN command tells the servers of one universe of a lockdown's
-- start or release: it has no access point (the zero id) and carries the
-- lockdown as of its issue (JSON), for the servers' sync answers.
ALTER TABLE commands ADD COLUMN lockdown_id    BLOB;
ALTER TABLE commands ADD COLUMN lockdown_start INTEGER NOT NULL DEFAULT 0;
ALTER TABLE commands ADD COLUMN lockdown       TEXT;
CREATE INDEX commands_lockdown ON commands (org, lockdown_id) WHERE lockdown_id IS NOT NULL;

-- An endpoint's position in the lockdown feed (lockdown.updated).
ALTER TABLE webhooks ADD COLUMN lockdowns_after INTEGER NOT NULL DEFAULT 0;

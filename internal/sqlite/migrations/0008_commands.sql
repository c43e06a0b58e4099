-- Remote commands that Gatehouse issues, the game servers that sync, and
-- what each server did with each command (docs/api.md, "POST
-- /commands" and "POST /servers/{serverJobId}/sync").

-- A location may name the platform universe it lives in.
ALTER TABLE locations ADD COLUMN universe_id TEXT;

-- commands held, until now, the state ingested events reported. Issued
-- commands (issued = 1) carry the rest; ingest never changes them.
ALTER TABLE commands ADD COLUMN issued          INTEGER NOT NULL DEFAULT 0;
ALTER TABLE commands ADD COLUMN type            TEXT;
ALTER TABLE commands ADD COLUMN universe_id     TEXT;
ALTER TABLE commands ADD COLUMN location_id     BLOB;
ALTER TABLE commands ADD COLUMN duration_s      INTEGER;
ALTER TABLE commands ADD COLUMN expires_at      INTEGER;
ALTER TABLE commands ADD COLUMN note            TEXT;
ALTER TABLE commands ADD COLUMN failure_reason  TEXT;
ALTER TABLE commands ADD COLUMN started_at      INTEGER; -- first delivery
ALTER TABLE commands ADD COLUMN requested_by    BLOB;    -- a dashboard user
ALTER TABLE commands ADD COLUMN issued_by_key   BLOB;    -- an API key
-- The k-of-N counts of the command's delivery rows (gatehouse.CommandTargets),
-- kept by the transactions that change those rows: reading them is one
-- row, not a count over a row per server.
ALTER TABLE commands ADD COLUMN targets_live      INTEGER NOT NULL DEFAULT 0; -- target rows
ALTER TABLE commands ADD COLUMN targets_delivered INTEGER NOT NULL DEFAULT 0; -- target rows delivered
ALTER TABLE commands ADD COLUMN targets_executed  INTEGER NOT NULL DEFAULT 0; -- target rows answered EXECUTED
ALTER TABLE commands ADD COLUMN targets_failed    INTEGER NOT NULL DEFAULT 0; -- target rows answered FAILED
ALTER TABLE commands ADD COLUMN targets_joined    INTEGER NOT NULL DEFAULT 0; -- other rows delivered
-- Lists, newest first.
CREATE INDEX commands_page ON commands (org, issued_at DESC, id DESC) WHERE issued = 1;
-- The sweep finds what is due to expire.
CREATE INDEX commands_unsettled ON commands (expires_at) WHERE issued = 1 AND status IN ('PENDING', 'DELIVERED');
-- A server that joins finds the universe's running unlocks.
CREATE INDEX commands_universe ON commands (org, universe_id, issued_at) WHERE issued = 1 AND scope = 'UNIVERSE';

-- One row per server that must receive or received a command. target = 1
-- for the servers live at issue (they count in the command's targets);
-- gen is the server's sync generation of the last answer that carried it;
-- sent_status is the command's status in that answer.
CREATE TABLE command_deliveries (
  org          INTEGER NOT NULL,
  command_id   BLOB NOT NULL,
  job_id       TEXT NOT NULL,
  target       INTEGER NOT NULL,
  delivered_at INTEGER,
  gen          INTEGER,
  sent_status  TEXT,
  result       TEXT,
  detail       TEXT,
  acked_at     INTEGER,
  PRIMARY KEY (org, command_id, job_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX command_deliveries_by_server ON command_deliveries (org, job_id) WHERE result IS NULL;

-- Game servers, as their syncs describe them. gen counts the answers that
-- carried commands: the sync cursor.
CREATE TABLE game_servers (
  org            INTEGER NOT NULL,
  job_id         TEXT NOT NULL,
  universe_id    TEXT NOT NULL,
  place_id       TEXT,
  players        TEXT NOT NULL, -- JSON array of platform user ids
  players_digest BLOB NOT NULL,
  started_at     INTEGER NOT NULL,
  seen_at        INTEGER NOT NULL,
  gen            INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (org, job_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX game_servers_live ON game_servers (org, universe_id, seen_at DESC);
CREATE INDEX game_servers_seen ON game_servers (seen_at);

-- Who is on which server: how a PLAYER command finds its server.
CREATE TABLE server_players (
  org              INTEGER NOT NULL,
  universe_id      TEXT NOT NULL,
  platform_user_id TEXT NOT NULL,
  job_id           TEXT NOT NULL,
  PRIMARY KEY (org, universe_id, platform_user_id, job_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX server_players_by_server ON server_players (org, job_id);

-- Idempotency-Key of POST /commands, kept IdempotencyWindow.
CREATE TABLE idempotency_keys (
  org        INTEGER NOT NULL,
  key        TEXT NOT NULL,
  command_id BLOB NOT NULL,
  digest     BLOB NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (org, key)
) STRICT, WITHOUT ROWID;
CREATE INDEX idempotency_keys_age ON idempotency_keys (created_at);

-- Wakes for the long polls of other processes on this file (a CLI's
-- unlock while gatehouse serve runs): the watcher reads rows after the
-- last it saw.
CREATE TABLE command_wakes (
  seq         INTEGER PRIMARY KEY,
  org         BLOB NOT NULL, -- the organization's id
  universe_id TEXT NOT NULL,
  job_id      TEXT NOT NULL, -- one server, or '' for every server of the universe
  at          INTEGER NOT NULL
) STRICT;

-- Leases of background work that every instance runs.
CREATE TABLE leases (
  name   TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  until  INTEGER NOT NULL
) STRICT;

-- Platform messaging (Open Cloud) per organization and universe: the API
-- key sealed under the service secret (AES-GCM), never stored in clear.
CREATE TABLE messaging_keys (
  org         INTEGER NOT NULL,
  universe_id TEXT NOT NULL,
  sealed      BLOB NOT NULL,
  hint        TEXT NOT NULL, -- the key's last 4 characters
  created_at  INTEGER NOT NULL,
  PRIMARY KEY (org, universe_id)
) STRICT, WITHOUT ROWID;

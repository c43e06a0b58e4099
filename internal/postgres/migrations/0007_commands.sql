-- Remote commands that Gatehouse issues, the game servers that sync, and
-- what each server did with each command (docs/api.md, "POST
-- /commands" and "POST /servers/{serverJobId}/sync").

-- A location may name the platform universe it lives in.
ALTER TABLE locations ADD COLUMN universe_id text;

-- commands held, until now, the state ingested events reported. Issued
-- commands (issued) carry the rest; ingest never changes them.
ALTER TABLE commands
  ADD COLUMN issued         boolean NOT NULL DEFAULT false,
  ADD COLUMN type           text,
  ADD COLUMN universe_id    text,
  ADD COLUMN location_id    uuid,
  ADD COLUMN duration_s     integer,
  ADD COLUMN expires_at     timestamptz,
  ADD COLUMN note           text,
  ADD COLUMN failure_reason text,
  ADD COLUMN started_at     timestamptz, -- first delivery
  ADD COLUMN requested_by   uuid,        -- a dashboard user
  ADD COLUMN issued_by_key  uuid,        -- an API key
  -- The k-of-N counts of the command's delivery rows
  -- (gatehouse.CommandTargets), kept by the transactions that change
  -- those rows: reading them is one row, not a count over a row per
  -- server. Delivered and joined are in command_delivery_counts.
  ADD COLUMN targets_live      integer NOT NULL DEFAULT 0, -- target rows
  ADD COLUMN targets_executed  integer NOT NULL DEFAULT 0, -- target rows answered EXECUTED
  ADD COLUMN targets_failed    integer NOT NULL DEFAULT 0; -- target rows answered FAILED
-- Lists, newest first.
CREATE INDEX commands_page ON commands (org, issued_at DESC, id DESC) WHERE issued;
-- The sweep finds what is due to expire.
CREATE INDEX commands_unsettled ON commands (expires_at) WHERE issued AND status IN ('PENDING', 'DELIVERED');
-- A server that joins finds the universe's running unlocks.
CREATE INDEX commands_universe ON commands (org, universe_id, issued_at) WHERE issued AND scope = 'UNIVERSE';

-- One row per server that must receive or received a command. target is
-- true for the servers live at issue (they count in the command's
-- targets); gen is the server's sync generation of the last answer that
-- carried it; sent_status is the command's status in that answer.
CREATE TABLE command_deliveries (
  org          bigint NOT NULL,
  command_id   uuid NOT NULL,
  job_id       text NOT NULL,
  target       boolean NOT NULL,
  delivered_at timestamptz,
  gen          bigint,
  sent_status  text,
  result       text,
  detail       text,
  acked_at     timestamptz,
  PRIMARY KEY (org, command_id, job_id)
);
CREATE INDEX command_deliveries_by_server ON command_deliveries (org, job_id) WHERE result IS NULL;

-- The first deliveries of a command's rows, counted by the takes that
-- deliver them: delivered for target rows, joined for the others. A take
-- adds to the row of its server's shard (of 16), so the takes of one
-- command's servers neither wait for one row nor for each other's
-- commits, as they would on the commands row; a read sums the shards.
CREATE TABLE command_delivery_counts (
  org        bigint NOT NULL,
  command_id uuid NOT NULL,
  shard      smallint NOT NULL,
  delivered  integer NOT NULL,
  joined     integer NOT NULL,
  PRIMARY KEY (org, command_id, shard)
);

-- Game servers, as their syncs describe them. gen counts the answers that
-- carried commands: the sync cursor.
CREATE TABLE game_servers (
  org            bigint NOT NULL,
  job_id         text NOT NULL,
  universe_id    text NOT NULL,
  place_id       text,
  players        jsonb NOT NULL, -- array of platform user ids
  players_digest bytea NOT NULL,
  started_at     timestamptz NOT NULL,
  seen_at        timestamptz NOT NULL,
  gen            bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (org, job_id)
);
CREATE INDEX game_servers_live ON game_servers (org, universe_id, seen_at DESC);
CREATE INDEX game_servers_seen ON game_servers (seen_at);

-- Who is on which server: how a PLAYER command finds its server.
CREATE TABLE server_players (
  org              bigint NOT NULL,
  universe_id      text NOT NULL,
  platform_user_id text NOT NULL,
  job_id           text NOT NULL,
  PRIMARY KEY (org, universe_id, platform_user_id, job_id)
);
CREATE INDEX server_players_by_server ON server_players (org, job_id);

-- Idempotency-Key of POST /commands, kept IdempotencyWindow.
CREATE TABLE idempotency_keys (
  org        bigint NOT NULL,
  key        text NOT NULL,
  command_id uuid NOT NULL,
  digest     bytea NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (org, key)
);
CREATE INDEX idempotency_keys_age ON idempotency_keys (created_at);

-- Leases of background work that every instance runs.
CREATE TABLE leases (
  name   text PRIMARY KEY,
  holder text NOT NULL,
  until  timestamptz NOT NULL
);

-- Platform messaging (Open Cloud) per organization and universe: the API
-- key sealed under the service secret (AES-GCM), never stored in clear.
CREATE TABLE messaging_keys (
  org         bigint NOT NULL,
  universe_id text NOT NULL,
  sealed      bytea NOT NULL,
  hint        text NOT NULL, -- the key's last 4 characters
  created_at  timestamptz NOT NULL,
  PRIMARY KEY (org, universe_id)
);

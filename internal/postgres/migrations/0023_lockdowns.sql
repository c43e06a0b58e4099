-- Lockdowns (docs/api.md, "Lockdowns"): an operator's one action that
-- denies every access point of a location, a universe or the whole
-- organization with reason LOCKDOWN until released or until `until`.

CREATE TABLE lockdowns (
  org           bigint NOT NULL REFERENCES organizations (seq),
  id            uuid NOT NULL,
  scope         text NOT NULL,   -- ORGANIZATION, UNIVERSE or LOCATION
  universe_id   text,            -- UNIVERSE
  location_id   uuid,            -- LOCATION
  reason        text NOT NULL,
  started_at    timestamptz NOT NULL,
  until         timestamptz,
  released_at   timestamptz,
  requested_by  uuid,            -- a dashboard user
  issued_by_key uuid,            -- an API key
  released_type text,            -- user, key or system
  released_by   uuid,            -- the user or key
  PRIMARY KEY (org, id)
);
CREATE INDEX lockdowns_page ON lockdowns (org, started_at DESC, id DESC);
CREATE INDEX lockdowns_running ON lockdowns (org) WHERE released_at IS NULL;
CREATE INDEX lockdowns_until ON lockdowns (until) WHERE released_at IS NULL AND until IS NOT NULL;

-- Starts and releases are a feed of their own, for lockdown.updated
-- deliveries, one row each, positioned as events are (0012_feed.sql): the
-- changing transaction's id, then a sequence value.
CREATE SEQUENCE lockdown_change_seq;
CREATE TABLE lockdown_changes (
  org         bigint NOT NULL,
  xid         xid8 NOT NULL DEFAULT pg_current_xact_id(),
  seq         bigint NOT NULL DEFAULT nextval('lockdown_change_seq'),
  lockdown_id uuid NOT NULL,
  released    boolean NOT NULL,
  PRIMARY KEY (org, xid, seq)
);

-- A LOCKDOWN command tells the servers of one universe of a lockdown's
-- start or release: it has no access point (the zero id) and carries the
-- lockdown as of its issue (JSON), for the servers' sync answers.
ALTER TABLE commands ADD COLUMN lockdown_id uuid,
  ADD COLUMN lockdown_start boolean NOT NULL DEFAULT false,
  ADD COLUMN lockdown text;
CREATE INDEX commands_lockdown ON commands (org, lockdown_id) WHERE lockdown_id IS NOT NULL;

-- An endpoint's position in the lockdown feed (lockdown.updated).
ALTER TABLE webhooks ADD COLUMN lockdowns_txn bigint NOT NULL DEFAULT 0,
  ADD COLUMN lockdowns_seq bigint NOT NULL DEFAULT 0;

-- Webhooks (docs/api.md, "Webhooks"): endpoints, their
-- positions in the feeds, their leases, and the delivery log.

-- An issued command's status changes are a feed of their own, for
-- command.updated deliveries: change_seq is max + 1 at each change, in
-- the order of the one writer's commits (as events' seq).
ALTER TABLE commands ADD COLUMN change_seq INTEGER NOT NULL DEFAULT 0;
CREATE INDEX commands_changes ON commands (change_seq) WHERE issued = 1;
CREATE INDEX commands_feed ON commands (org, change_seq) WHERE issued = 1;
CREATE TRIGGER commands_created AFTER INSERT ON commands WHEN NEW.issued = 1 BEGIN
  UPDATE commands SET change_seq = (SELECT coalesce(max(change_seq), 0) + 1 FROM commands WHERE issued = 1)
  WHERE org = NEW.org AND id = NEW.id;
END;
CREATE TRIGGER commands_changed AFTER UPDATE OF status ON commands
  WHEN NEW.issued = 1 AND NEW.status IS NOT OLD.status BEGIN
  UPDATE commands SET change_seq = (SELECT coalesce(max(change_seq), 0) + 1 FROM commands WHERE issued = 1)
  WHERE org = NEW.org AND id = NEW.id;
END;

CREATE TABLE webhooks (
  seq             INTEGER PRIMARY KEY,
  org             INTEGER NOT NULL REFERENCES organizations(seq),
  id              BLOB NOT NULL UNIQUE,
  url             TEXT NOT NULL,
  description     TEXT NOT NULL,
  types           TEXT NOT NULL, -- comma-separated
  filters         TEXT NOT NULL, -- the feed's query parameters, encoded
  sealed          BLOB NOT NULL, -- the secret, sealed (gatehouse.Sealer)
  enabled         INTEGER NOT NULL,
  disabled_reason TEXT NOT NULL DEFAULT '',
  created_at      INTEGER NOT NULL,
  events_after    INTEGER NOT NULL, -- feed position (seq) delivered through
  commands_after  INTEGER NOT NULL, -- command change position
  generation      INTEGER NOT NULL DEFAULT 0,
  attempts        INTEGER NOT NULL DEFAULT 0, -- failed attempts of the head
  failing_since   INTEGER,
  last_error      TEXT NOT NULL DEFAULT '',
  next_at         INTEGER NOT NULL, -- due from
  lease_holder    TEXT,
  lease_until     INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX webhooks_org ON webhooks (org, seq);
CREATE INDEX webhooks_due ON webhooks (next_at) WHERE enabled = 1;

CREATE TABLE webhook_deliveries (
  seq           INTEGER PRIMARY KEY,
  webhook       INTEGER NOT NULL REFERENCES webhooks(seq) ON DELETE CASCADE,
  id            BLOB NOT NULL UNIQUE,
  message_id    TEXT NOT NULL,
  type          TEXT NOT NULL,
  object_id     BLOB NOT NULL,
  status        TEXT NOT NULL,
  manual        INTEGER NOT NULL,
  attempt       INTEGER NOT NULL,
  at            INTEGER NOT NULL,
  response_code INTEGER,
  latency_ms    INTEGER,
  error         TEXT NOT NULL DEFAULT '',
  response      TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (webhook, seq);
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (webhook, seq) WHERE status = 'pending';

-- Webhooks (docs/api.md, "Webhooks"): endpoints, their
-- positions in the feeds, their leases, and the delivery log.

-- An issued command's status changes are a feed of their own, for
-- command.updated deliveries, positioned as events are (0012_feed.sql):
-- the changing transaction's id, then a sequence value. Commands issued
-- before this migration keep (0, 0).
CREATE SEQUENCE command_changes;
ALTER TABLE commands ADD COLUMN change_xid xid8 NOT NULL DEFAULT '0',
  ADD COLUMN change_seq bigint NOT NULL DEFAULT 0;
CREATE FUNCTION commands_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.issued AND (TG_OP = 'INSERT' OR NEW.status IS DISTINCT FROM OLD.status) THEN
    NEW.change_xid := pg_current_xact_id();
    NEW.change_seq := nextval('command_changes');
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER commands_changed BEFORE INSERT OR UPDATE ON commands
  FOR EACH ROW EXECUTE FUNCTION commands_changed();
CREATE INDEX commands_feed ON commands (org, change_xid, change_seq) WHERE issued;

CREATE TABLE webhooks (
  seq             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  org             bigint NOT NULL REFERENCES organizations (seq),
  id              uuid NOT NULL UNIQUE,
  url             text NOT NULL,
  description     text NOT NULL,
  types           text NOT NULL, -- comma-separated
  filters         text NOT NULL, -- the feed's query parameters, encoded
  sealed          bytea NOT NULL, -- the secret, sealed (gatehouse.Sealer)
  enabled         boolean NOT NULL,
  disabled_reason text NOT NULL DEFAULT '',
  created_at      timestamptz NOT NULL,
  events_txn      bigint NOT NULL, -- feed position delivered through
  events_seq      bigint NOT NULL,
  commands_txn    bigint NOT NULL, -- command change position
  commands_seq    bigint NOT NULL,
  generation      bigint NOT NULL DEFAULT 0,
  attempts        integer NOT NULL DEFAULT 0, -- failed attempts of the head
  failing_since   timestamptz,
  last_error      text NOT NULL DEFAULT '',
  next_at         timestamptz NOT NULL, -- due from
  lease_holder    text,
  lease_until     timestamptz NOT NULL DEFAULT '-infinity'
);
CREATE INDEX webhooks_org ON webhooks (org, seq);
CREATE INDEX webhooks_due ON webhooks (next_at) WHERE enabled;

CREATE TABLE webhook_deliveries (
  seq           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  webhook       bigint NOT NULL REFERENCES webhooks (seq) ON DELETE CASCADE,
  id            uuid NOT NULL UNIQUE,
  message_id    text NOT NULL,
  type          text NOT NULL,
  object_id     uuid NOT NULL,
  status        text NOT NULL,
  manual        boolean NOT NULL,
  attempt       integer NOT NULL,
  at            timestamptz NOT NULL,
  response_code integer,
  latency_ms    bigint,
  error         text NOT NULL DEFAULT '',
  response      text NOT NULL DEFAULT ''
);
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (webhook, seq);
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (webhook, seq) WHERE status = 'pending';

-- Alert rules (docs/api.md, "Alert rules"): the rules, their feed
-- positions and leases, the alerts they fired with the state of their
-- delivery, and the log of delivery attempts.
CREATE TABLE alert_rules (
  seq              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  org              bigint NOT NULL REFERENCES organizations (seq),
  id               uuid NOT NULL UNIQUE,
  name             text NOT NULL,
  kind             text NOT NULL, -- threshold or audit
  condition        text NOT NULL, -- JSON (gatehouse.AlertCondition)
  format           text NOT NULL,
  url              text NOT NULL,
  sealed           bytea, -- a standard-webhooks secret, sealed
  cooldown_seconds integer NOT NULL,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  events_txn       bigint NOT NULL, -- feed position evaluated through
  events_seq       bigint NOT NULL,
  generation       bigint NOT NULL DEFAULT 0,
  next_at          timestamptz NOT NULL, -- due from (threshold rules)
  lease_holder     text,
  lease_until      timestamptz NOT NULL DEFAULT '-infinity'
);
CREATE INDEX alert_rules_org ON alert_rules (org, kind, seq);
CREATE INDEX alert_rules_due ON alert_rules (next_at) WHERE kind = 'threshold';

CREATE TABLE alerts (
  seq            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  org            bigint NOT NULL REFERENCES organizations (seq),
  rule           bigint NOT NULL REFERENCES alert_rules (seq) ON DELETE CASCADE,
  id             uuid NOT NULL UNIQUE,
  kind           text NOT NULL,
  test           boolean NOT NULL,
  group_by       text NOT NULL,
  group_key      text NOT NULL,
  count          integer NOT NULL,
  window_seconds integer NOT NULL,
  window_start   timestamptz NOT NULL,
  window_end     timestamptz NOT NULL,
  audit          text, -- JSON (gatehouse.AlertAuditEntry)
  filters        text NOT NULL, -- JSON: the rule's filters when it fired
  fired_at       timestamptz NOT NULL,
  status         text NOT NULL, -- pending, succeeded, failed
  attempts       integer NOT NULL DEFAULT 0,
  next_at        timestamptz NOT NULL,
  last_error     text NOT NULL DEFAULT '',
  lease_holder   text,
  lease_until    timestamptz NOT NULL DEFAULT '-infinity'
);
CREATE INDEX alerts_org ON alerts (org, seq);
CREATE INDEX alerts_rule ON alerts (rule, seq);
CREATE INDEX alerts_cooldown ON alerts (rule, group_key, fired_at) WHERE NOT test;
CREATE INDEX alerts_due ON alerts (next_at) WHERE status = 'pending';

CREATE TABLE alert_attempts (
  seq           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  alert         bigint NOT NULL REFERENCES alerts (seq) ON DELETE CASCADE,
  id            uuid NOT NULL UNIQUE,
  attempt       integer NOT NULL,
  at            timestamptz NOT NULL,
  status        text NOT NULL,
  response_code integer,
  latency_ms    bigint,
  error         text NOT NULL DEFAULT '',
  response      text NOT NULL DEFAULT ''
);
CREATE INDEX alert_attempts_log ON alert_attempts (alert, seq);

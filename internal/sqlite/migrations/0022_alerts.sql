-- Alert rules (docs/api.md, "Alert rules"): the rules, their feed
-- positions and leases, the alerts they fired with the state of their
-- delivery, and the log of delivery attempts.
CREATE TABLE alert_rules (
  seq              INTEGER PRIMARY KEY,
  org              INTEGER NOT NULL REFERENCES organizations(seq),
  id               BLOB NOT NULL UNIQUE,
  name             TEXT NOT NULL,
  kind             TEXT NOT NULL, -- threshold or audit
  condition        TEXT NOT NULL, -- JSON (gatehouse.AlertCondition)
  format           TEXT NOT NULL,
  url              TEXT NOT NULL,
  sealed           BLOB, -- a standard-webhooks secret, sealed
  cooldown_seconds INTEGER NOT NULL,
  created_at       INTEGER NOT NULL,
  updated_at       INTEGER NOT NULL,
  events_after     INTEGER NOT NULL, -- feed position (seq) evaluated through
  generation       INTEGER NOT NULL DEFAULT 0,
  next_at          INTEGER NOT NULL, -- due from (threshold rules)
  lease_holder     TEXT,
  lease_until      INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX alert_rules_org ON alert_rules (org, kind, seq);
CREATE INDEX alert_rules_due ON alert_rules (next_at) WHERE kind = 'threshold';

CREATE TABLE alerts (
  seq            INTEGER PRIMARY KEY,
  org            INTEGER NOT NULL REFERENCES organizations(seq),
  rule           INTEGER NOT NULL REFERENCES alert_rules(seq) ON DELETE CASCADE,
  id             BLOB NOT NULL UNIQUE,
  kind           TEXT NOT NULL,
  test           INTEGER NOT NULL,
  group_by       TEXT NOT NULL,
  group_key      TEXT NOT NULL,
  count          INTEGER NOT NULL,
  window_seconds INTEGER NOT NULL,
  window_start   INTEGER NOT NULL,
  window_end     INTEGER NOT NULL,
  audit          TEXT, -- JSON (gatehouse.AlertAuditEntry)
  filters        TEXT NOT NULL, -- JSON: the rule's filters when it fired
  fired_at       INTEGER NOT NULL,
  status         TEXT NOT NULL, -- pending, succeeded, failed
  attempts       INTEGER NOT NULL DEFAULT 0,
  next_at        INTEGER NOT NULL,
  last_error     TEXT NOT NULL DEFAULT '',
  lease_holder   TEXT,
  lease_until    INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX alerts_org ON alerts (org, seq);
CREATE INDEX alerts_rule ON alerts (rule, seq);
CREATE INDEX alerts_cooldown ON alerts (rule, group_key, fired_at) WHERE test = 0;
CREATE INDEX alerts_due ON alerts (next_at) WHERE status = 'pending';

CREATE TABLE alert_attempts (
  seq           INTEGER PRIMARY KEY,
  alert         INTEGER NOT NULL REFERENCES alerts(seq) ON DELETE CASCADE,
  id            BLOB NOT NULL UNIQUE,
  attempt       INTEGER NOT NULL,
  at            INTEGER NOT NULL,
  status        TEXT NOT NULL,
  response_code INTEGER,
  latency_ms    INTEGER,
  error         TEXT NOT NULL DEFAULT '',
  response      TEXT NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX alert_attempts_log ON alert_attempts (alert, seq);

-- The audit log: one row per change, appended in the transaction of the
-- change and never changed or deleted (the triggers refuse it, whatever
-- the code above them does). org is NULL only for a failed sign-in of an
-- email no organization knows. changes is a JSON object of
-- field -> {"from", "to"}.
CREATE TABLE audit_log (
  id             BLOB PRIMARY KEY,
  org            INTEGER REFERENCES organizations(seq),
  at             INTEGER NOT NULL,
  action         TEXT NOT NULL,
  actor_type     TEXT NOT NULL,
  actor_id       BLOB,
  actor_label    TEXT NOT NULL,
  target_type    TEXT NOT NULL,
  target_id      BLOB,
  target_name    TEXT NOT NULL,
  changes        TEXT NOT NULL,
  request_id     TEXT NOT NULL,
  client_address TEXT NOT NULL
) STRICT;
-- Pages are newest first within an organization.
CREATE INDEX audit_log_page ON audit_log (org, at DESC, id DESC);

CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit entries are never changed'); END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN SELECT RAISE(ABORT, 'audit entries are never deleted'); END;

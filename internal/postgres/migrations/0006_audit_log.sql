-- The audit log: one row per change, appended in the transaction of the
-- change and never changed or deleted (the trigger refuses it, whatever
-- the code above it does). org is NULL only for a failed sign-in of an
-- email no organization knows. changes is a JSON object of
-- field -> {"from", "to"}.
CREATE TABLE audit_log (
  id             uuid PRIMARY KEY,
  org            bigint REFERENCES organizations (seq),
  at             timestamptz NOT NULL,
  action         text NOT NULL,
  actor_type     text NOT NULL,
  actor_id       uuid,
  actor_label    text NOT NULL,
  target_type    text NOT NULL,
  target_id      uuid,
  target_name    text NOT NULL,
  changes        jsonb NOT NULL,
  request_id     text NOT NULL,
  client_address text NOT NULL
);
-- Pages are newest first within an organization.
CREATE INDEX audit_log_page ON audit_log (org, at DESC, id DESC);

CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit entries are never changed or deleted';
END $$;
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();

-- One delivery of a right-to-erasure notification erases; the others
-- wait for it and answer duplicate (docs/api.md, "The platform's
-- right-to-erasure webhook"). A claim lasts until `until`, so that a
-- claim whose instance died is taken over; `done` once the erasure is
-- recorded.
CREATE TABLE erasure_claims (
  org             bigint NOT NULL REFERENCES organizations (seq),
  notification_id text NOT NULL,
  until           timestamptz NOT NULL,
  done            boolean NOT NULL DEFAULT false,
  PRIMARY KEY (org, notification_id)
);

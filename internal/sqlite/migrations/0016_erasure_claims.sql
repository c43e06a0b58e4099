-- One delivery of a right-to-erasure notification erases; the others
-- wait for it and answer duplicate (docs/api.md, "The platform's
-- right-to-erasure webhook"). A claim lasts until `until` (ms), so that
-- a claim whose instance died is taken over; `done` once the erasure is
-- recorded.
CREATE TABLE erasure_claims (
  org             INTEGER NOT NULL REFERENCES organizations(seq),
  notification_id TEXT NOT NULL,
  until           INTEGER NOT NULL,
  done            INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (org, notification_id)
) STRICT;

-- Two factors (docs/security.md, "Two factors"): a dashboard user's TOTP
-- secret, sealed with the service secret under the label
-- "totp:<user id>" and bound to the organization; the last time step
-- whose code was accepted, so that a code is good once; and when the
-- factor was enrolled. No secret: no second factor.
ALTER TABLE users ADD COLUMN totp_sealed BLOB;
ALTER TABLE users ADD COLUMN totp_step INTEGER NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN totp_enrolled_at INTEGER;

-- The recovery codes of a user's second factor: HMACs of the codes keyed
-- by the TOTP secret they go with (sealed above), each good once.
CREATE TABLE recovery_codes (
  org       INTEGER NOT NULL REFERENCES organizations(seq),
  user_id   BLOB NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  code_hash BLOB NOT NULL,
  used_at   INTEGER,
  PRIMARY KEY (user_id, code_hash)
) STRICT;

-- An organization may require a second factor of its members: a member
-- without one is then signed in to enrol one, and nothing else.
ALTER TABLE organizations ADD COLUMN second_factor_required INTEGER NOT NULL DEFAULT 0;

-- A session of a member who must enrol a second factor first.
ALTER TABLE sessions ADD COLUMN enrol_only INTEGER NOT NULL DEFAULT 0;

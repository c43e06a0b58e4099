-- Two factors (docs/security.md, "Two factors"): a dashboard user's TOTP
-- secret, sealed with the service secret under the label
-- "totp:<user id>" and bound to the organization; the last time step
-- whose code was accepted, so that a code is good once; and when the
-- factor was enrolled. No secret: no second factor.
ALTER TABLE users
  ADD COLUMN totp_sealed bytea,
  ADD COLUMN totp_step bigint NOT NULL DEFAULT 0,
  ADD COLUMN totp_enrolled_at timestamptz;

-- The recovery codes of a user's second factor: HMACs of the codes keyed
-- by the TOTP secret they go with (sealed above), each good once.
CREATE TABLE recovery_codes (
  org       bigint NOT NULL REFERENCES organizations (seq),
  user_id   uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  code_hash bytea NOT NULL,
  used_at   timestamptz,
  PRIMARY KEY (user_id, code_hash)
);

-- An organization may require a second factor of its members: a member
-- without one is then signed in to enrol one, and nothing else.
ALTER TABLE organizations ADD COLUMN second_factor_required boolean NOT NULL DEFAULT false;

-- A session of a member who must enrol a second factor first.
ALTER TABLE sessions ADD COLUMN enrol_only boolean NOT NULL DEFAULT false;

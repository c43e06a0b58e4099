-- Invitations (docs/security.md, "Invitations"): the link an admin hands
-- a user they added, one per user not yet proven. Only the SHA-256 of its
-- random token is kept; the link is good until expires_at and once: using
-- it deletes the row. A user with no row here and not proven takes no
-- part in sign-in until an admin makes a new link.
CREATE TABLE invitations (
  org        bigint NOT NULL REFERENCES organizations (seq),
  user_id    uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  token_hash bytea NOT NULL UNIQUE,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL
);

-- When and how each user was proven: a failed sign-in of an email is
-- recorded in the organization of its first proven user, and in those
-- whose user the OpenID provider or the operator proved, so that a user
-- an admin proves later through a link (a look-alike) reads none of it.
-- Users proven before this migration count from when they were added,
-- proven by signing in.
ALTER TABLE users ADD COLUMN proven_at timestamptz;
ALTER TABLE users ADD COLUMN proven_by text;
UPDATE users SET proven_at = created_at, proven_by = 'sign-in' WHERE proven;

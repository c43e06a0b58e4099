-- Invitations (docs/security.md, "Invitations"): the link an admin hands
-- a user they added, one per user not yet proven. Only the SHA-256 of its
-- random token is kept; the link is good until expires_at and once: using
-- it deletes the row. A user with no row here and not proven takes no
-- part in sign-in until an admin makes a new link.
CREATE TABLE invitations (
  org        INTEGER NOT NULL REFERENCES organizations(seq),
  user_id    BLOB PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  token_hash BLOB NOT NULL UNIQUE,
  expires_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL
) STRICT;

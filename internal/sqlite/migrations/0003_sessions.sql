-- Dashboard sessions: the browser holds a random token, the table its hash.
CREATE TABLE sessions (
  token_hash BLOB PRIMARY KEY,
  user_id    BLOB NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  csrf       TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX sessions_by_expiry ON sessions (expires_at);

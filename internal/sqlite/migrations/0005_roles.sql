-- Roles, and emails unique per organization rather than globally.
-- SQLite cannot change a column's UNIQUE constraint in place, so users is
-- rebuilt. sessions references users and would lose its rows when the old
-- table is dropped, so it is set aside and put back unchanged.
-- Every existing user becomes an admin: until now every user could do
-- everything, and no organization must lose the power to manage itself.
CREATE TEMP TABLE sessions_kept AS SELECT * FROM sessions;
DROP TABLE sessions;

CREATE TABLE users_new (
  id            BLOB PRIMARY KEY,
  org           INTEGER NOT NULL REFERENCES organizations(seq),
  email         TEXT NOT NULL, -- stored lower-cased
  name          TEXT NOT NULL,
  role          TEXT NOT NULL CHECK (role IN ('admin', 'operator', 'viewer')),
  password_hash TEXT NOT NULL,
  created_at    INTEGER NOT NULL,
  UNIQUE (org, email)
) STRICT;
INSERT INTO users_new (id, org, email, name, role, password_hash, created_at)
  SELECT id, org, email, name, 'admin', password_hash, created_at FROM users;
DROP TABLE users;
ALTER TABLE users_new RENAME TO users;
-- Sign-in looks a person up by email across organizations.
CREATE INDEX users_by_email ON users (email);

CREATE TABLE sessions (
  token_hash BLOB PRIMARY KEY,
  user_id    BLOB NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  csrf       TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
) STRICT;
CREATE INDEX sessions_by_expiry ON sessions (expires_at);
CREATE INDEX sessions_by_user ON sessions (user_id);
INSERT INTO sessions SELECT token_hash, user_id, csrf, created_at, expires_at FROM sessions_kept;
DROP TABLE sessions_kept;

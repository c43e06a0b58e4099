-- Roles, and emails unique per organization rather than globally.
-- Every existing user becomes an admin: until now every user could do
-- everything, and no organization must lose the power to manage itself.
ALTER TABLE users ADD COLUMN role text NOT NULL DEFAULT 'admin'
  CHECK (role IN ('admin', 'operator', 'viewer'));
ALTER TABLE users ALTER COLUMN role DROP DEFAULT;
ALTER TABLE users DROP CONSTRAINT users_email_key;
ALTER TABLE users ADD CONSTRAINT users_org_email_key UNIQUE (org, email);
-- Sign-in looks a person up by email across organizations.
CREATE INDEX users_by_email ON users (email);
-- Removing a user or lowering a role ends their sessions.
CREATE INDEX sessions_by_user ON sessions (user_id);

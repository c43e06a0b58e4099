-- A user's role, and an API key, may be limited to locations
-- (docs/security.md, "Roles limited to locations"): their ids,
-- comma-separated; NULL for the whole organization. No foreign key: a
-- deleted location stays listed and matches nothing, so deleting a
-- user's last location never widens their reach to everything.
ALTER TABLE users ADD COLUMN reach text;
ALTER TABLE api_keys ADD COLUMN reach text;

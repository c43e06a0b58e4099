-- A player's display name as the game server reported it with the event
-- (docs/api.md, "IngestEvent"), shown beside the id; null when it did not.
-- Personal data like the id: erasure deletes it with the player's events.
ALTER TABLE events ADD COLUMN platform_user_name TEXT;

-- Timed grants (docs/api.md, "POST /grants"): a player passes the access
-- points a grant lists, or every access point of its location, from
-- from_at (inclusive) to the earlier of until_at and revoked_at
-- (exclusive). Times are Unix milliseconds.
CREATE TABLE grants (
  id               BLOB PRIMARY KEY,
  org              INTEGER NOT NULL REFERENCES organizations(seq),
  platform_user_id TEXT NOT NULL,
  access_point_ids TEXT NOT NULL, -- JSON array of UUIDs, as given ([] with a location)
  location_id      BLOB,
  from_at          INTEGER NOT NULL,
  until_at         INTEGER NOT NULL,
  revoked_at       INTEGER,
  note             TEXT,
  source_type      TEXT NOT NULL,
  receipt_id       TEXT,
  created_at       INTEGER NOT NULL,
  created_by       BLOB, -- a dashboard user
  created_by_key   BLOB  -- an API key
) STRICT;
-- The same receipt in an organization is the same grant (several NULLs
-- are distinct).
CREATE UNIQUE INDEX grants_receipt ON grants (org, receipt_id);
-- Lists, newest first.
CREATE INDEX grants_page ON grants (org, created_at DESC, id DESC);
-- A player's grants: decisions, syncs, the list per player.
CREATE INDEX grants_by_player ON grants (org, platform_user_id, until_at);
-- Grants of a location: the list per access point.
CREATE INDEX grants_by_location ON grants (org, location_id) WHERE location_id IS NOT NULL;
-- An organization's grants in force or to come, soonest ending first:
-- what each instance keeps for decisions and syncs.
CREATE INDEX grants_live ON grants (org, until_at) WHERE revoked_at IS NULL;

-- The access points a grant lists, for the list per access point.
CREATE TABLE grant_access_points (
  org             INTEGER NOT NULL,
  access_point_id BLOB NOT NULL,
  grant_id        BLOB NOT NULL,
  PRIMARY KEY (org, access_point_id, grant_id)
) STRICT, WITHOUT ROWID;

-- The servers hosting a player, whatever their universe: the syncs a
-- grant wakes.
CREATE INDEX server_players_by_player ON server_players (org, platform_user_id);

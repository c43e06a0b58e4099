-- Timed grants (docs/api.md, "POST /grants"): a player passes the access
-- points a grant lists, or every access point of its location, from
-- from_at (inclusive) to the earlier of until_at and revoked_at
-- (exclusive).
CREATE TABLE grants (
  id               uuid PRIMARY KEY,
  org              bigint NOT NULL REFERENCES organizations (seq),
  platform_user_id text NOT NULL,
  access_point_ids uuid[] NOT NULL, -- as given ('{}' with a location)
  location_id      uuid,
  from_at          timestamptz NOT NULL,
  until_at         timestamptz NOT NULL,
  revoked_at       timestamptz,
  note             text,
  source_type      text NOT NULL,
  receipt_id       text,
  created_at       timestamptz NOT NULL,
  created_by       uuid, -- a dashboard user
  created_by_key   uuid  -- an API key
);
-- The same receipt in an organization is the same grant (several NULLs
-- are distinct); CreateGrant inserts ON CONFLICT on it.
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
  org             bigint NOT NULL,
  access_point_id uuid NOT NULL,
  grant_id        uuid NOT NULL,
  PRIMARY KEY (org, access_point_id, grant_id)
);

-- The servers hosting a player, whatever their universe: the syncs a
-- grant wakes.
CREATE INDEX server_players_by_player ON server_players (org, platform_user_id);

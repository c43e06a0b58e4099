-- Access policies (docs/api.md, "GET
-- /access-points/{id}/policy"). Every version of an access point's policy is kept: a
-- change adds a row, none is ever deleted, so the audit log's versions
-- can always be read back.
CREATE TABLE policies (
  org             bigint NOT NULL REFERENCES organizations (seq),
  access_point_id uuid NOT NULL REFERENCES access_points (id),
  version         bigint NOT NULL,      -- 1, 2, 3… per access point
  body            text NOT NULL,        -- gatehouse.PolicyBody: JSON without version and time
  created_at      timestamptz NOT NULL, -- the version's updatedAt
  PRIMARY KEY (access_point_id, version)
);

-- The current version (NULL: no policy yet), so that an access point's
-- policy and a universe's set are one join. A change locks the access
-- point's row, so concurrent changes take versions one after another.
ALTER TABLE access_points ADD COLUMN policy_version bigint;

-- A universe's policy set starts from its locations.
CREATE INDEX locations_by_universe ON locations (org, universe_id) WHERE universe_id IS NOT NULL;

-- A decision reads the access point's recent unlocks.
CREATE INDEX commands_by_access_point ON commands (org, access_point_id, issued_at) WHERE issued;

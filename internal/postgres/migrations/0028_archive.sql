-- Access points and locations can be archived (docs/api.md, "Archive and
-- delete"): hidden from lists, their events kept and still found. The
-- instant it was archived; NULL while in use.
ALTER TABLE locations ADD COLUMN archived_at timestamptz;
ALTER TABLE access_points ADD COLUMN archived_at timestamptz;

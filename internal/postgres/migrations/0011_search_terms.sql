-- Search over terms, not over events. q was matched through a trigram
-- index over every event, which capped the insert rate of the events
-- table (10,900 rows/s against 40,600 without it) and whose pending-list
-- flushes stalled concurrent writes for 60-85 ms. Every searched field is
-- low-cardinality next to the log: its distinct values per organization
-- (search terms) are kept here, written at ingest the first time a value
-- is seen, and q is matched on them; the events of each matching term are
-- read through the index of its field. The event id is matched by prefix,
-- through events_by_id.
CREATE TABLE search_terms (
  org    bigint NOT NULL REFERENCES organizations (seq),
  field  smallint NOT NULL, -- sqlstore.TermField
  ref    uuid NOT NULL,     -- the access point or location of a name; the nil UUID otherwise
  value  text NOT NULL,
  folded text NOT NULL,     -- gatehouse.FoldCase(value), which q's pattern matches
  PRIMARY KEY (org, field, ref, value)
);
-- New terms are rare after the first days of a game: no pending list, so
-- that a search never pays for its flush.
CREATE INDEX search_terms_folded ON search_terms USING gin (folded gin_trgm_ops) WITH (fastupdate = off);

-- The terms of the events stored so far, folded as their search text was
-- (its fields joined by U+001F: id, user, access point, location, reason,
-- job). One pass over the events.
INSERT INTO search_terms (org, field, ref, value, folded)
SELECT e.org, t.field, t.ref, t.value, min(t.folded)
FROM events e
CROSS JOIN LATERAL (VALUES
  (1::smallint, '00000000-0000-0000-0000-000000000000'::uuid, e.platform_user_id, split_part(e.search, E'\x1f', 2)),
  (2, e.access_point_id, e.access_point_name, split_part(e.search, E'\x1f', 3)),
  (3, e.location_id, e.location_name, split_part(e.search, E'\x1f', 4)),
  (4, '00000000-0000-0000-0000-000000000000', e.reason, split_part(e.search, E'\x1f', 5)),
  (5, '00000000-0000-0000-0000-000000000000', e.server_job_id, split_part(e.search, E'\x1f', 6))
) AS t (field, ref, value, folded)
WHERE t.value <> ''
GROUP BY e.org, t.field, t.ref, t.value;

DROP INDEX events_search;
ALTER TABLE events DROP COLUMN search;

-- allowed follows from type (granted for ACCESS_GRANTED, denied for
-- ACCESS_DENIED, none for REMOTE_UNLOCK), so its filter reads
-- events_by_type.
DROP INDEX events_by_allowed;

-- Most events are granted attempts, which have no reason, and which a
-- filter finds faster in events_by_time (nearly every event there is one)
-- than through a type index. Those two indexes keep only the rows they
-- serve, and every granted attempt costs two index inserts fewer.
DROP INDEX events_by_type;
CREATE INDEX events_by_type ON events (org, type, occurred_at DESC, id DESC) WHERE type <> 'ACCESS_GRANTED';
DROP INDEX events_by_reason;
CREATE INDEX events_by_reason ON events (org, reason, occurred_at DESC, id DESC) WHERE reason IS NOT NULL;

-- Organizations are never deleted, and every write of events reads the
-- organization's key just before: the foreign key checked a row of
-- organizations for every event inserted, 6% of an import's time in the
-- database.
ALTER TABLE events DROP CONSTRAINT events_org_fkey;

-- Where autovacuum runs, it gathers the statistics of events after 2% of
-- the table changed rather than 10%: a bulk load otherwise plans as an
-- empty table for minutes. Gatehouse also gathers them itself
-- (RefreshStatistics), for servers where autovacuum is off or behind.
ALTER TABLE events SET (autovacuum_analyze_scale_factor = 0.02);

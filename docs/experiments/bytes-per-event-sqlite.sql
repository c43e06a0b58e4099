-- The compact row of bytes-per-event.sql on SQLite: the stored events
-- copied, with small integer keys for what repeats, into a table of its
-- own with the same indexes as that plan, inserted in the order they
-- were stored. Run with the sqlite3 shell on a copy of a seeded file
-- (it adds tables; dbstat is compiled into Debian's sqlite3):
--
--   gatehouse bench seed --events 1000000 --orgs 4 --seed 1 --db bench.db
--   cp bench.db lab.db && sqlite3 lab.db < docs/experiments/bytes-per-event-sqlite.sql
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
CREATE TABLE lab_ap (key INTEGER PRIMARY KEY, id BLOB UNIQUE);
INSERT INTO lab_ap (id) SELECT DISTINCT access_point_id FROM events;
CREATE TABLE lab_loc (key INTEGER PRIMARY KEY, id BLOB UNIQUE);
INSERT INTO lab_loc (id) SELECT DISTINCT location_id FROM events;
CREATE TABLE lab_names (key INTEGER PRIMARY KEY, org, ap_name, loc_name, UNIQUE (org, ap_name, loc_name));
INSERT INTO lab_names (org, ap_name, loc_name) SELECT DISTINCT org, access_point_name, location_name FROM events;
CREATE TABLE lab_player (key INTEGER PRIMARY KEY, org, v, UNIQUE (org, v));
INSERT INTO lab_player (org, v) SELECT DISTINCT org, platform_user_id FROM events WHERE platform_user_id IS NOT NULL;
CREATE TABLE lab_job (key INTEGER PRIMARY KEY, org, v, UNIQUE (org, v));
INSERT INTO lab_job (org, v) SELECT DISTINCT org, server_job_id FROM events WHERE server_job_id IS NOT NULL;
CREATE TABLE lab_reason (key INTEGER PRIMARY KEY, org, v, UNIQUE (org, v));
INSERT INTO lab_reason (org, v) SELECT DISTINCT org, reason FROM events WHERE reason IS NOT NULL;

CREATE TABLE lab_events (seq INTEGER PRIMARY KEY, org INTEGER NOT NULL, id BLOB NOT NULL, type INTEGER NOT NULL,
  occurred_at INTEGER NOT NULL, received_at INTEGER NOT NULL, reason INTEGER, player INTEGER, job INTEGER, scope INTEGER,
  ap INTEGER NOT NULL, loc INTEGER NOT NULL, names INTEGER NOT NULL, requested_by BLOB, command_id BLOB, platform_user_name TEXT) STRICT;
CREATE UNIQUE INDEX lab_events_by_id ON lab_events (org, id);
CREATE INDEX lab_events_by_time ON lab_events (org, occurred_at);
CREATE INDEX lab_events_by_access_point ON lab_events (org, ap, occurred_at);
CREATE INDEX lab_events_by_location ON lab_events (org, loc, occurred_at);
CREATE INDEX lab_events_by_user ON lab_events (org, player, occurred_at);
CREATE INDEX lab_events_by_type ON lab_events (org, type, occurred_at) WHERE type <> 0;
CREATE INDEX lab_events_by_reason ON lab_events (org, reason, occurred_at) WHERE reason IS NOT NULL;
CREATE INDEX lab_events_by_scope ON lab_events (org, scope, occurred_at) WHERE scope IS NOT NULL;
CREATE INDEX lab_events_feed ON lab_events (org, seq);
INSERT INTO lab_events
SELECT e.seq, e.org, e.id, CASE e.type WHEN 'ACCESS_GRANTED' THEN 0 WHEN 'ACCESS_DENIED' THEN 1 ELSE 2 END,
  e.occurred_at, e.received_at, r.key, p.key, j.key, CASE e.scope WHEN 'UNIVERSE' THEN 1 WHEN 'SERVER' THEN 2 WHEN 'PLAYER' THEN 3 END,
  a.key, l.key, n.key, e.requested_by, e.command_id, e.platform_user_name
FROM events e JOIN lab_ap a ON a.id = e.access_point_id JOIN lab_loc l ON l.id = e.location_id
JOIN lab_names n ON n.org = e.org AND n.ap_name = e.access_point_name AND n.loc_name = e.location_name
LEFT JOIN lab_player p ON p.org = e.org AND p.v = e.platform_user_id
LEFT JOIN lab_job j ON j.org = e.org AND j.v = e.server_job_id
LEFT JOIN lab_reason r ON r.org = e.org AND r.v = e.reason
ORDER BY e.seq;

.mode column
SELECT name, round(sum(pgsize) * 1.0 / (SELECT count(*) FROM lab_events), 1) AS bytes_per_event
FROM dbstat WHERE name LIKE 'lab_events%' GROUP BY name
UNION ALL
SELECT 'lab_events with its indexes', round(sum(pgsize) * 1.0 / (SELECT count(*) FROM lab_events), 1) FROM dbstat WHERE name LIKE 'lab_events%'
UNION ALL
SELECT 'the dictionaries', round(sum(pgsize) * 1.0 / (SELECT count(*) FROM lab_events), 1) FROM dbstat
  WHERE name LIKE 'lab\_%' ESCAPE '\' AND name NOT LIKE 'lab_events%' OR name LIKE 'sqlite_autoindex_lab\_%' ESCAPE '\';
EXPLAIN QUERY PLAN SELECT * FROM lab_events WHERE org = 1 AND ap = 5 ORDER BY occurred_at DESC, id DESC LIMIT 51;

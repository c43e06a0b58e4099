\timing on
\echo first page flat
SELECT count(*) FROM (SELECT id FROM part_flat.events WHERE org = 1 ORDER BY occurred_at DESC, id DESC LIMIT 51) s;
SELECT count(*) FROM (SELECT id FROM part_flat.events WHERE org = 1 ORDER BY occurred_at DESC, id DESC LIMIT 51) s;
\echo first page monthly
SELECT count(*) FROM (SELECT id FROM part_month.events WHERE org = 1 ORDER BY occurred_at DESC, id DESC LIMIT 51) s;
SELECT count(*) FROM (SELECT id FROM part_month.events WHERE org = 1 ORDER BY occurred_at DESC, id DESC LIMIT 51) s;
\echo user filter flat
SELECT count(*) FROM (SELECT id FROM part_flat.events WHERE org = 1 AND platform_user_id = '41' ORDER BY occurred_at DESC, id DESC LIMIT 51) s;
SELECT count(*) FROM (SELECT id FROM part_flat.events WHERE org = 1 AND platform_user_id = '41' ORDER BY occurred_at DESC, id DESC LIMIT 51) s;
\echo user filter monthly
SELECT count(*) FROM (SELECT id FROM part_month.events WHERE org = 1 AND platform_user_id = '41' ORDER BY occurred_at DESC, id DESC LIMIT 51) s;
SELECT count(*) FROM (SELECT id FROM part_month.events WHERE org = 1 AND platform_user_id = '41' ORDER BY occurred_at DESC, id DESC LIMIT 51) s;
\echo id lookup flat
SELECT count(*) FROM part_flat.events WHERE org = 1 AND id = '00000000-0000-0000-0000-000000000009';
SELECT count(*) FROM part_flat.events WHERE org = 1 AND id = '00000000-0000-0000-0000-000000000009';
\echo id lookup monthly
SELECT count(*) FROM part_month.events WHERE org = 1 AND id = '00000000-0000-0000-0000-000000000009';
SELECT count(*) FROM part_month.events WHERE org = 1 AND id = '00000000-0000-0000-0000-000000000009';
\echo retention flat: delete the oldest month
BEGIN; DELETE FROM part_flat.events WHERE occurred_at < '2024-12-01'; ROLLBACK;
\echo retention monthly: drop the oldest partition
BEGIN; DROP TABLE part_month.events_0; ROLLBACK;

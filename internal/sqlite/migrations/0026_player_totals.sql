-- The ranking of players over every kind of event (docs/decisions.md,
-- "A ranking of every kind reads the players' totals"): levels of a
-- player's count of all kinds in a month, under type, reason and scope
-- '' (no event has type ''), beside those of each kind. A ranking with no
-- kind filter reads a month's list of totals instead of one list per
-- kind, so that a player not met at level k has less than 2^k in each of
-- 13 lists rather than in each of 91. The roller writes them as a
-- player's total crosses each level (rollups.go); they go when the
-- player's last row of the month does.
DROP TRIGGER insight_player_gone;
CREATE TRIGGER insight_player_gone AFTER DELETE ON insight_player_months BEGIN
  DELETE FROM insight_player_levels WHERE org = OLD.org AND type = OLD.type AND month = OLD.month
    AND reason = OLD.reason AND scope = OLD.scope AND platform_user_id = OLD.platform_user_id;
  DELETE FROM insight_player_levels WHERE org = OLD.org AND type = '' AND month = OLD.month AND reason = '' AND scope = ''
    AND platform_user_id = OLD.platform_user_id
    AND NOT EXISTS (SELECT 1 FROM insight_player_months m
      WHERE m.org = OLD.org AND m.month = OLD.month AND m.platform_user_id = OLD.platform_user_id);
END;

-- The totals of what the roller folded so far.
WITH RECURSIVE k(level) AS (SELECT 1 UNION ALL SELECT level + 1 FROM k WHERE level < 62),
  totals AS (SELECT org, month, platform_user_id, sum(n) AS n FROM insight_player_months GROUP BY 1, 2, 3)
INSERT INTO insight_player_levels (org, type, month, reason, scope, level, platform_user_id)
  SELECT t.org, '', t.month, '', '', k.level, t.platform_user_id FROM totals t JOIN k ON (1 << k.level) <= t.n;

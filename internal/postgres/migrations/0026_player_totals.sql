-- The ranking of players over every kind of event (docs/decisions.md,
-- "A ranking of every kind reads the players' totals"): levels of a
-- player's count of all kinds in a month, under type, reason and scope
-- '' (no event has type ''), beside those of each kind. A ranking with no
-- kind filter reads a month's list of totals instead of one list per
-- kind, so that a player not met at level k has less than 2^k in each of
-- 13 lists rather than in each of 91. The roller writes them as a
-- player's total crosses each level (players.go, fold); they go when the
-- player's last row of the month does.
--
-- A roller of the release before writes no totals: one that folded
-- during a rolling upgrade would leave a player's month without the
-- levels its total crossed, and a ranking would stop before them. So the
-- rollup's rows carry the fold that wrote them (fold: 2), a column
-- without a default, which that roller's insert does not name: its
-- folds fail until it is replaced (the events wait for this release's
-- rollers; rankings stay exact meanwhile, reading them as pending).
ALTER TABLE insight_player_months ADD COLUMN fold smallint NOT NULL DEFAULT 2;
ALTER TABLE insight_player_months ALTER COLUMN fold DROP DEFAULT;
CREATE OR REPLACE FUNCTION insight_player_gone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM insight_player_levels l USING insight_player_gone g
    WHERE (l.org, l.type, l.month, l.reason, l.scope, l.platform_user_id)
      = (g.org, g.type, g.month, g.reason, g.scope, g.platform_user_id);
  DELETE FROM insight_player_levels l USING (SELECT DISTINCT org, month, platform_user_id FROM insight_player_gone) g
    WHERE l.org = g.org AND l.type = '' AND l.month = g.month AND l.reason = '' AND l.scope = ''
      AND l.platform_user_id = g.platform_user_id
      AND NOT EXISTS (SELECT 1 FROM insight_player_months m
        WHERE m.org = g.org AND m.month = g.month AND m.platform_user_id = g.platform_user_id);
  RETURN NULL;
END $$;

-- The totals of what the roller folded so far.
INSERT INTO insight_player_levels (org, type, month, reason, scope, level, platform_user_id)
  SELECT t.org, '', t.month, '', '', k, t.platform_user_id
  FROM (SELECT org, month, platform_user_id, sum(n) AS n FROM insight_player_months GROUP BY 1, 2, 3) t,
    generate_series(1, 62) k
  WHERE 1::bigint << k <= t.n;

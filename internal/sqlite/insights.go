package sqlite

import (
	"context"
	"errors"
	"strings"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
)

// The rows a batch of stored events adds to the rollups (migration 0021),
// each once per batch: the triggers of 0021 take out what is deleted.
const (
	addInsightHour = `INSERT INTO insight_hours (org, hour, access_point_id, location_id, type, reason, scope, n)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET n = n + excluded.n`
	addInsightDay = `INSERT INTO insight_days (org, day, access_point_id, location_id, type, reason, scope, n)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET n = n + excluded.n`
	addInsightMonth = `INSERT INTO insight_months (org, month, access_point_id, location_id, type, reason, scope, n)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET n = n + excluded.n`
	addInsightPlayer = `INSERT INTO insight_player_days (org, day, platform_user_id, access_point_id, location_id, type, reason, scope, n)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET n = n + excluded.n`
)

// addInsights adds the counts of the events ins stored to the rollups, in
// key order, and forgets them.
func (ins *eventInserter) addInsights(ctx context.Context, org int64) error {
	d := ins.counts
	ins.counts = sqlstore.InsightDeltas{}
	if ins.noRollups {
		return nil
	}
	for _, k := range sqlstore.Sorted(d.Hours) {
		if _, err := ins.tx.ExecContext(ctx, addInsightHour, org, millis(k.Start), k.AccessPoint[:], k.Location[:],
			k.Type, k.Reason, k.Scope, d.Hours[k]); err != nil {
			return err
		}
	}
	for _, k := range sqlstore.Sorted(d.Days) {
		if _, err := ins.tx.ExecContext(ctx, addInsightDay, org, millis(k.Start), k.AccessPoint[:], k.Location[:],
			k.Type, k.Reason, k.Scope, d.Days[k]); err != nil {
			return err
		}
	}
	for _, k := range sqlstore.Sorted(d.Months) {
		if _, err := ins.tx.ExecContext(ctx, addInsightMonth, org, millis(k.Start), k.AccessPoint[:], k.Location[:],
			k.Type, k.Reason, k.Scope, d.Months[k]); err != nil {
			return err
		}
	}
	for _, k := range sqlstore.Sorted(d.Players) {
		if _, err := ins.tx.ExecContext(ctx, addInsightPlayer, org, millis(k.Start), k.Player, k.AccessPoint[:], k.Location[:],
			k.Type, k.Reason, k.Scope, d.Players[k]); err != nil {
			return err
		}
	}
	return nil
}

// hourOf is the UTC hour of an event's occurred_at, in ms, as the rollup
// triggers compute it (migration 0021): floored before 1970 too.
const hourOf = "(e.occurred_at - (e.occurred_at % 3600000 + 3600000) % 3600000)"

// CountInsights counts from the rollups of migration 0021 the whole
// buckets of the window and from the events its ends
// ([sqlstore.PlanInsights]), in one statement.
func (db *DB) CountInsights(ctx context.Context, orgID uuid.UUID, f gatehouse.EventFilter, by gatehouse.InsightGroup, limit int) (_ []gatehouse.InsightCount, err error) {
	defer sqlstore.Label(&err, "Store.CountInsights", orgID)
	column, eventCond := sqlstore.InsightColumn(by)
	if column == "" && by != gatehouse.GroupHour || f.From == nil || f.To == nil {
		return nil, gatehouse.Invalid("groupBy", "a store counts insights by %s with a window", by)
	}
	org, err := db.orgSeq(ctx, db.read, orgID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var (
		parts []string
		args  []any
	)
	for _, part := range sqlstore.PlanInsights(f, by) {
		key, cond := "e."+column, ""
		if !part.Rollup() {
			if column == "" {
				key = hourOf
			}
			if eventCond != "" {
				cond = " AND " + eventCond
			}
			conds, condArgs := filterConditions(org, sqlstore.EventsFilter(f, part))
			parts = append(parts, "SELECT "+key+" AS k, e.type AS t, 1 AS n FROM events e WHERE e.org = ?"+conds+cond)
			args = append(append(args, org), condArgs...)
			continue
		}
		if column == "" {
			key = "e." + part.Bucket
		}
		if by == gatehouse.GroupReason {
			cond = " AND e.reason <> ''"
		}
		conds, condArgs := filterConditions(org, sqlstore.RollupFilter(f))
		parts = append(parts, "SELECT "+key+" AS k, e.type AS t, e.n AS n FROM "+part.Table+" e WHERE e.org = ? AND e."+
			part.Bucket+" >= ? AND e."+part.Bucket+" < ?"+conds+cond)
		args = append(append(args, org, millis(part.From), millis(part.To)), condArgs...)
	}
	if len(parts) == 0 {
		return nil, nil
	}
	query := `SELECT k, sum(CASE WHEN t = 'ACCESS_GRANTED' THEN n ELSE 0 END),
		sum(CASE WHEN t = 'ACCESS_DENIED' THEN n ELSE 0 END),
		sum(CASE WHEN t IN ('ACCESS_GRANTED', 'ACCESS_DENIED') THEN 0 ELSE n END)
		FROM (` + strings.Join(parts, " UNION ALL ") + `) GROUP BY k`
	if by == gatehouse.GroupHour {
		query += " ORDER BY k"
	} else {
		query += " ORDER BY sum(n) DESC, k"
		if limit > 0 {
			query += " LIMIT ?"
			args = append(args, limit)
		}
	}
	rows, err := db.read.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, wrap(err)
	}
	defer rows.Close()
	var counts []gatehouse.InsightCount
	for rows.Next() {
		var (
			k any
			c gatehouse.InsightCount
		)
		if err := rows.Scan(&k, &c.Granted, &c.Denied, &c.RemoteUnlocks); err != nil {
			return nil, wrap(err)
		}
		switch k := k.(type) {
		case int64:
			c.Hour = fromMillis(k)
		case []byte:
			id, err := uuid.FromBytes(k)
			if err != nil {
				return nil, err
			}
			c.Key = id.String()
		case string:
			c.Key = k
		}
		counts = append(counts, c)
	}
	return counts, wrap(rows.Err())
}

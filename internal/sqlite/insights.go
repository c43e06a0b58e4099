package sqlite

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
)

// The rows a batch of stored events adds to the rollups (migration 0021),
// each once per batch: the triggers of 0021 take out what is deleted. The
// player rollup is rolled up behind (players.go).
const (
	addInsightHourTotals = `INSERT INTO insight_hour_totals (org, hour, granted, denied, remote_unlocks)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET granted = granted + excluded.granted,
		denied = denied + excluded.denied, remote_unlocks = remote_unlocks + excluded.remote_unlocks`
	addInsightHour = `INSERT INTO insight_hours (org, hour, type, reason, scope, n)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET n = n + excluded.n`
	addInsightDay = `INSERT INTO insight_days (org, day, type, reason, scope, n)
		VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET n = n + excluded.n`
	addInsightDoorDay = `INSERT INTO insight_door_days (org, day, access_point_id, location_id, type, reason, scope, n)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET n = n + excluded.n`
	addInsightDoorMonth = `INSERT INTO insight_door_months (org, month, access_point_id, location_id, type, reason, scope, n)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET n = n + excluded.n`
)

// addInsights adds the counts of the events ins stored to the rollups, in
// key order, and forgets them.
func (ins *eventInserter) addInsights(ctx context.Context, org int64) error {
	d := ins.counts
	ins.counts = sqlstore.InsightDeltas{}
	if ins.noRollups {
		return nil
	}
	var (
		hour   time.Time
		totals [3]int
	)
	for i, k := range sqlstore.Sorted(d.HourTotals) {
		if i > 0 && !k.Start.Equal(hour) {
			if _, err := ins.tx.ExecContext(ctx, addInsightHourTotals, org, millis(hour), totals[0], totals[1], totals[2]); err != nil {
				return err
			}
			totals = [3]int{}
		}
		hour = k.Start
		switch gatehouse.EventType(k.Type) {
		case gatehouse.EventAccessGranted:
			totals[0] += d.HourTotals[k]
		case gatehouse.EventAccessDenied:
			totals[1] += d.HourTotals[k]
		default:
			totals[2] += d.HourTotals[k]
		}
	}
	if len(d.HourTotals) > 0 {
		if _, err := ins.tx.ExecContext(ctx, addInsightHourTotals, org, millis(hour), totals[0], totals[1], totals[2]); err != nil {
			return err
		}
	}
	for _, k := range sqlstore.Sorted(d.Hours) {
		if _, err := ins.tx.ExecContext(ctx, addInsightHour, org, millis(k.Start), k.Type, k.Reason, k.Scope, d.Hours[k]); err != nil {
			return err
		}
	}
	for _, k := range sqlstore.Sorted(d.Days) {
		if _, err := ins.tx.ExecContext(ctx, addInsightDay, org, millis(k.Start), k.Type, k.Reason, k.Scope, d.Days[k]); err != nil {
			return err
		}
	}
	for _, k := range sqlstore.Sorted(d.DoorDays) {
		if _, err := ins.tx.ExecContext(ctx, addInsightDoorDay, org, millis(k.Start), k.AccessPoint[:], k.Location[:],
			k.Type, k.Reason, k.Scope, d.DoorDays[k]); err != nil {
			return err
		}
	}
	for _, k := range sqlstore.Sorted(d.DoorMonths) {
		if _, err := ins.tx.ExecContext(ctx, addInsightDoorMonth, org, millis(k.Start), k.AccessPoint[:], k.Location[:],
			k.Type, k.Reason, k.Scope, d.DoorMonths[k]); err != nil {
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
	// A part taken out counts negatively, and a group that adds up to
	// nothing had no events in the window.
	plan := sqlstore.PlanInsights(f, by)
	if slices.ContainsFunc(plan, func(p sqlstore.InsightPart) bool { return p.Table == sqlstore.TablePlayerMonths }) {
		return db.rankPlayers(ctx, org, f, plan, limit)
	}
	outcomes, groupBy := sqlstore.InsightOutcomes(by)
	for _, part := range plan {
		signed := func(n string) string {
			if part.Sign < 0 {
				return "-" + n
			}
			return n
		}
		key, cond := "e."+column, ""
		if !part.Rollup() {
			if column == "" {
				key = hourOf
			}
			if eventCond != "" {
				cond = " AND " + eventCond
			}
			conds, condArgs := filterConditions(org, sqlstore.EventsFilter(f, part))
			parts = append(parts, "SELECT "+key+" AS k, "+outcomes(signed("1"))+
				" FROM events e WHERE e.org = ?"+conds+cond+groupBy)
			args = append(append(args, org), condArgs...)
			continue
		}
		if column == "" {
			key = "e." + part.Bucket
		}
		if by == gatehouse.GroupReason {
			cond = " AND e.reason <> ''"
		}
		if part.Table == sqlstore.TableHourTotals {
			g, d, r := sqlstore.TotalColumns(f)
			parts = append(parts, "SELECT e.hour AS k, "+signed(g)+" AS g, "+signed(d)+" AS d, "+signed(r)+" AS r FROM insight_hour_totals e"+
				" WHERE e.org = ? AND e.hour >= ? AND e.hour < ? AND "+g+" + "+d+" + "+r+" > 0")
			args = append(args, org, millis(part.From), millis(part.To))
			continue
		}
		conds, condArgs := filterConditions(org, sqlstore.RollupFilter(f))
		parts = append(parts, "SELECT "+key+" AS k, "+outcomes(signed("e.n"))+" FROM "+part.Table+
			" e WHERE e.org = ? AND e."+part.Bucket+" >= ? AND e."+part.Bucket+" < ?"+conds+cond+groupBy)
		args = append(append(args, org, millis(part.From), millis(part.To)), condArgs...)
	}
	if len(parts) == 0 {
		return nil, nil
	}
	query := `SELECT k, sum(g), sum(d), sum(r) FROM (` + strings.Join(parts, " UNION ALL ") + `) GROUP BY k
		HAVING sum(g) + sum(d) + sum(r) > 0`
	if by == gatehouse.GroupHour {
		query += " ORDER BY k"
	} else {
		query += " ORDER BY sum(g) + sum(d) + sum(r) DESC, k"
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

package postgres

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// hourOf is the UTC hour of an event's occurred_at, as the rollup
// triggers compute it (migration 0021).
const hourOf = "date_bin('1 hour', e.occurred_at, timestamptz '2000-01-01 00:00:00+00')"

// keyColumns are the events' columns of keys, and their kind, of the
// rollups' columns of ids.
var keyColumns = map[string]struct {
	column string
	kind   valueKind
}{"access_point_id": {"access_point", kindAccessPoint}, "location_id": {"location", kindLocation}}

// CountInsights counts from the rollups of migration 0021 the whole
// buckets of the window and from the events its ends
// ([sqlstore.PlanInsights]), in one statement.
func (db *DB) CountInsights(ctx context.Context, orgID uuid.UUID, f gatehouse.EventFilter, by gatehouse.InsightGroup, limit int) (_ []gatehouse.InsightCount, err error) {
	defer sqlstore.Label(&err, "Store.CountInsights", orgID)
	column, eventCond := sqlstore.InsightColumn(by)
	if column == "" && by != gatehouse.GroupHour || f.From == nil || f.To == nil {
		return nil, gatehouse.Invalid("groupBy", "a store counts insights by %s with a window", by)
	}
	org, err := db.orgSeq(ctx, db.replica, orgID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	args := []any{org}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	// A part taken out counts negatively, and a group that adds up to
	// nothing had no events in the window.
	plan := sqlstore.PlanInsights(f, by)
	if slices.ContainsFunc(plan, func(p sqlstore.InsightPart) bool { return p.Table == sqlstore.TablePlayerMonths }) {
		return db.rankPlayers(ctx, org, f, plan, limit)
	}
	outcomes, groupBy := sqlstore.InsightOutcomes(by)
	var parts []string
	for _, part := range plan {
		signed := func(n string) string {
			if part.Sign < 0 {
				return "-" + n
			}
			return n
		}
		key := "e." + column
		if !part.Rollup() {
			if column == "" {
				key = hourOf
			}
			conds, _ := filterConditions(sqlstore.EventsFilter(f, part), arg)
			if eventCond != "" {
				conds = append(conds, eventCond)
			}
			// The events with their codes decoded, as the rollups hold
			// them; a door's or a location's key is mapped to its id once
			// its events are counted.
			events := "(SELECT e.occurred_at, event_type_name(e.type) AS type, e.reason, e.platform_user_id, e.access_point, e.location" +
				" FROM events e WHERE e.org = $1 AND " + strings.Join(conds, " AND ") + ") e"
			if keys, ok := keyColumns[column]; ok {
				parts = append(parts, "SELECT v.value::uuid AS k, x.g, x.d, x.r FROM (SELECT e."+keys.column+" AS k, "+outcomes(signed("1"))+
					" FROM "+events+groupBy+") x JOIN event_values v ON v.org = $1 AND v.key = x.k AND v.kind = "+keys.kind.literal())
				continue
			}
			parts = append(parts, "SELECT "+key+" AS k, "+outcomes(signed("1"))+" FROM "+events+groupBy)
			continue
		}
		if column == "" {
			key = "e." + part.Bucket
		}
		if part.Table == sqlstore.TableHourTotals {
			g, d, r := sqlstore.TotalColumns(f)
			parts = append(parts, "SELECT e.hour AS k, "+signed(g)+" AS g, "+signed(d)+" AS d, "+signed(r)+" AS r FROM insight_hour_totals e"+
				" WHERE e.org = $1 AND e.hour >= "+arg(part.From)+" AND e.hour < "+arg(part.To)+" AND "+g+" + "+d+" + "+r+" > 0")
			continue
		}
		conds := rollupConditions(sqlstore.RollupFilter(f), arg)
		conds = append(conds, "e."+part.Bucket+" >= "+arg(part.From), "e."+part.Bucket+" < "+arg(part.To))
		if by == gatehouse.GroupReason {
			conds = append(conds, "e.reason <> ''")
		}
		parts = append(parts, "SELECT "+key+" AS k, "+outcomes(signed("e.n"))+" FROM "+part.Table+" e WHERE e.org = $1 AND "+
			strings.Join(conds, " AND ")+groupBy)
	}
	if len(parts) == 0 {
		return nil, nil
	}
	keyOut := "k::text COLLATE \"C\""
	if by == gatehouse.GroupHour {
		keyOut = "k"
	}
	query := `SELECT ` + keyOut + `, sum(g)::bigint, sum(d)::bigint, sum(r)::bigint
		FROM (` + strings.Join(parts, " UNION ALL ") + `) u GROUP BY k HAVING sum(g) + sum(d) + sum(r) > 0`
	if by == gatehouse.GroupHour {
		query += " ORDER BY k"
	} else {
		query += " ORDER BY sum(g) + sum(d) + sum(r) DESC, 1"
		if limit > 0 {
			query += " LIMIT " + arg(limit)
		}
	}
	var counts []gatehouse.InsightCount
	rows, _ := db.replica.Query(ctx, query, args...)
	var (
		hour time.Time
		key  string
		c    gatehouse.InsightCount
	)
	dest := []any{&key, &c.Granted, &c.Denied, &c.RemoteUnlocks}
	if by == gatehouse.GroupHour {
		dest[0] = &hour
	}
	_, err = pgx.ForEachRow(rows, dest, func() error {
		c.Key, c.Hour = key, hour.UTC()
		if by != gatehouse.GroupHour {
			c.Hour = time.Time{}
		}
		counts = append(counts, c)
		return nil
	})
	return counts, wrap(err)
}

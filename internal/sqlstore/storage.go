package sqlstore

import "strings"

// SideTables are the tables a stored event costs beside its own row and
// the indexes of events, which MeasureStorage (gatehouse bench bytes)
// measures with them. A table missing from a schema (an older one) is
// left out of the report.
var SideTables = []string{
	"search_terms",          // the distinct values of the searched fields (SQLite: with search_terms_text, its trigram index)
	"job_spans",             // the hours each server job's events occupy
	"recent_event_ids",      // PostgreSQL: the ids received in the last 7 days, against retries
	"event_values",          // PostgreSQL: the values events name by key (migration 0033)
	"insight_hour_totals",   // the insight rollups, kept at ingest and deletion
	"insight_hours",         //
	"insight_days",          //
	"insight_door_days",     //
	"insight_door_months",   //
	"insight_player_months", // the player rollup, folded behind ingest
	"insight_player_levels", //
}

// IndexDefinition is what follows the table's name in the statement
// that created an index ("CREATE INDEX x ON t (a, b) WHERE c", or on
// PostgreSQL "… ON public.t USING btree (a, b)"): its method when not a
// B-tree, its columns and its condition.
func IndexDefinition(create string) string {
	open := strings.IndexByte(create, '(')
	if open < 0 {
		return ""
	}
	head, def := create[:open], create[open:]
	if i := strings.Index(head, " USING "); i >= 0 {
		if method := strings.TrimSpace(head[i+len(" USING "):]); method != "btree" {
			def = method + " " + def
		}
	}
	return def
}

package move

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// Treatment is what a move does with a table.
type Treatment string

// The treatments. Every table of either database has one (tables), or
// the move refuses to run: a migration that adds a table must say what a
// move does with it.
const (
	// Copied: its rows are copied, column by column, converted from
	// SQLite's encoding to the PostgreSQL column's type (a table
	// PostgreSQL keeps compact, through a stage: compaction).
	Copied Treatment = "copied"
	// Derived: written from other rows of the source.
	Derived Treatment = "derived"
	// Rebuilt: PostgreSQL builds it from the moved rows, as it would have
	// from the same rows stored there: its triggers as the events are
	// copied, the player rollup's folding after the copy.
	Rebuilt Treatment = "rebuilt"
	// Skipped: not moved; Why says why.
	Skipped Treatment = "skipped"
)

// rule is how the move treats one table.
type rule struct {
	treat Treatment
	why   string
	// cols names where a PostgreSQL column's value comes from when not
	// from the SQLite column of the same name.
	cols map[string]colSource
	// reads are the SQLite columns another table's rule reads (the
	// commands' answer counts, for command_delivery_counts).
	reads []string
	// sealed names, for each column holding a value sealed under the
	// service secret, the label it is sealed for.
	sealed map[string]sealLabel
	// compact, for a table PostgreSQL keeps in a row of its own shape
	// (events, since migration 0033), makes its rows from SQLite's.
	compact *compaction
}

// colSource is where a PostgreSQL column without a SQLite column of its
// name takes its values.
type colSource struct {
	// from is the SQLite column, "" for the constant zero: the
	// transaction part of a position, zero on SQLite (its one writer
	// commits in the order it writes).
	from string
	// positionOf names the table whose key the value is a position in
	// (events): shifted with that key when the move renumbers it.
	positionOf string
}

// sealLabel is the label a row's sealed value is bound to.
type sealLabel func(r row) (string, error)

func byID(label func(uuid.UUID) string) sealLabel {
	return func(r row) (string, error) {
		id, err := r.uuid("id")
		return label(id), err
	}
}

func fixed(label string) sealLabel { return func(row) (string, error) { return label, nil } }

const (
	whyDerivedInsights = "kept by PostgreSQL's triggers as each batch of events is copied, as when they were ingested there"
	whyRolled          = "folded from the moved events after the copy, by the roller every instance runs, as PostgreSQL builds it"
)

// tables is the treatment of every table of both schemas. A table of
// one store only is here too, with the reason it is not copied.
var tables = map[string]rule{
	// An organization from SQLite keeps its positions, (0, seq): nothing
	// to shift (xid_shift), and its own ceiling for cursors of the first
	// form at the feed's start (cursor_ceiling), as ceiling sets the
	// database's when it holds no other organization.
	"organizations": {treat: Copied, cols: map[string]colSource{"xid_shift": {}, "cursor_ceiling": {}}},
	"settings": {treat: Copied, why: "the service secret: taken by a target that holds no organization; " +
		"otherwise the target keeps its own and the moved secrets are sealed again under it"},
	"api_keys":           {treat: Copied},
	"users":              {treat: Copied, sealed: map[string]sealLabel{"totp_sealed": byID(gatehouse.SecondFactorSealLabel)}},
	"recovery_codes":     {treat: Copied},
	"invitations":        {treat: Copied},
	"locations":          {treat: Copied},
	"access_points":      {treat: Copied},
	"policies":           {treat: Copied},
	"audit_log":          {treat: Copied},
	"events":             {treat: Copied, compact: eventRows},
	"search_terms":       {treat: Copied},
	"job_spans":          {treat: Copied},
	"commands":           {treat: Copied, reads: []string{"targets_delivered", "targets_joined", "targets_executed", "targets_failed"}},
	"command_deliveries": {treat: Copied},
	"idempotency_keys":   {treat: Copied},
	"game_servers":       {treat: Copied},
	"server_players":     {treat: Copied},
	"messaging_keys": {treat: Copied, sealed: map[string]sealLabel{"sealed": func(r row) (string, error) {
		return r.text("universe_id")
	}}},
	"webhooks": {treat: Copied, sealed: map[string]sealLabel{"sealed": byID(gatehouse.WebhookSealLabel)},
		cols: map[string]colSource{
			"events_txn": {}, "events_seq": {from: "events_after", positionOf: "events"},
			"commands_txn": {}, "commands_seq": {from: "commands_after"},
			"lockdowns_txn": {}, "lockdowns_seq": {from: "lockdowns_after"},
		}},
	"webhook_deliveries": {treat: Copied},
	"erasure_integrations": {treat: Copied, sealed: map[string]sealLabel{
		"sealed_token": fixed(gatehouse.ErasureTokenSealLabel), "sealed_secret": fixed(gatehouse.ErasureSecretSealLabel)}},
	"erasure_requests": {treat: Copied},
	"erasure_claims":   {treat: Copied},
	"alert_rules": {treat: Copied, sealed: map[string]sealLabel{"sealed": byID(gatehouse.AlertRuleSealLabel)},
		cols: map[string]colSource{"events_txn": {}, "events_seq": {from: "events_after", positionOf: "events"}}},
	"alerts":              {treat: Copied},
	"alert_attempts":      {treat: Copied},
	"lockdowns":           {treat: Copied},
	"lockdown_changes":    {treat: Copied},
	"grants":              {treat: Copied},
	"grant_access_points": {treat: Copied},

	"command_delivery_counts": {treat: Derived, why: "from the answer counts SQLite keeps on each command, in one shard"},
	"recent_event_ids": {treat: Derived, why: "the ids of the moved events received in the last 7 days, so that a retry is a duplicate " +
		"whatever its occurredAt, as if they had been received there"},
	"event_values": {treat: Derived, why: "the access points, locations, pairs of names and server jobs the moved events name, keyed per organization " +
		"as ingest keys them: stored as each batch of events is copied, before the events that name them"},
	"feed_cursor_ceiling": {treat: Derived, why: "set to the feed's start in a target without organizations, so that a hand-written " +
		"cursor of the first form names no moved position; a target in use keeps its own"},

	"insight_hour_totals":    {treat: Rebuilt, why: whyDerivedInsights},
	"insight_hours":          {treat: Rebuilt, why: whyDerivedInsights},
	"insight_days":           {treat: Rebuilt, why: whyDerivedInsights},
	"insight_door_days":      {treat: Rebuilt, why: whyDerivedInsights},
	"insight_door_months":    {treat: Rebuilt, why: whyDerivedInsights},
	"insight_player_months":  {treat: Rebuilt, why: whyRolled},
	"insight_player_levels":  {treat: Rebuilt, why: whyRolled},
	"insight_player_cursors": {treat: Rebuilt, why: "made by the organizations' trigger at the feed's start, so that the roller folds every moved event"},

	"sessions":            {treat: Skipped, why: "sign-ins are credentials, not records: everyone signs in again on the new instances"},
	"leases":              {treat: Skipped, why: "the running instances' claims on background work; the new instances take their own"},
	"organization_shards": {treat: Skipped, why: "PostgreSQL only: the directory of organizations on other primaries; a moved organization lives in the target (--db), where an organization the directory does not list lives"},
	"schema_migrations":   {treat: Skipped, why: "the target records the migrations it applied itself, the same"},

	"command_wakes":         {treat: Skipped, why: "SQLite only: wakes between processes on one file; PostgreSQL wakes with NOTIFY"},
	"insight_player_cursor": {treat: Skipped, why: "SQLite only: its player rollup's position; PostgreSQL keeps one per organization (insight_player_cursors)"},
	"search_terms_text":     {treat: Skipped, why: "SQLite only: the full-text index of search_terms; PostgreSQL indexes search_terms itself (pg_trgm)"},
}

// ftsShadow are the tables SQLite's full-text index keeps search_terms_text in.
var ftsShadow = []string{"search_terms_text_data", "search_terms_text_idx", "search_terms_text_docsize", "search_terms_text_config"}

// ruleOf returns the treatment of a table of either schema.
func ruleOf(table string) (rule, bool) {
	if r, ok := tables[table]; ok {
		return r, true
	}
	if slices.Contains(ftsShadow, table) {
		return rule{treat: Skipped, why: "SQLite only: a shadow table of the full-text index search_terms_text"}, true
	}
	if strings.HasPrefix(table, "sqlite_") {
		return rule{treat: Skipped, why: "SQLite's own (planner statistics, sequences)"}, true
	}
	return rule{}, false
}

// plan is what a move will do, checked against both schemas.
type plan struct {
	order []string // the PostgreSQL tables, parents before the tables whose keys reference them
	pg    *pgSchema
	src   sqliteSchema
}

// makePlan checks that the move knows every table and column of both
// schemas and can convert every type, and orders the tables. Its error
// lists every problem: a schema this move does not know entirely is not
// moved at all.
func makePlan(pg *pgSchema, src sqliteSchema) (*plan, error) {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	for name := range pg.Tables {
		if _, ok := ruleOf(name); !ok {
			bad("PostgreSQL table %s", name)
		}
	}
	for name := range src {
		if _, ok := ruleOf(name); !ok {
			bad("SQLite table %s", name)
		}
	}
	counted := map[string]bool{} // sequences that number a column the move sets past its values
	for _, t := range pg.Tables {
		for _, s := range t.Seqs {
			counted[s] = true
		}
	}
	for s, c := range triggerSequences {
		if t := pg.Tables[c.Table]; t != nil && t.column(c.Column) != nil {
			counted[s] = true
		}
	}
	for _, s := range pg.Sequences {
		if !counted[s] {
			bad("PostgreSQL sequence %s (which column it numbers, to set it past the copied values)", s)
		}
	}
	for name, t := range pg.Tables {
		r, _ := ruleOf(name)
		if r.treat != Copied {
			continue
		}
		cols, ok := src[name]
		if !ok {
			bad("PostgreSQL table %s, copied, has no SQLite table", name)
			continue
		}
		used := map[string]bool{}
		if r.compact != nil {
			for c := range r.compact.made {
				if t.column(c) == nil {
					bad("column %s.%s, which the move makes, is not in PostgreSQL", name, c)
				}
			}
		}
		for _, c := range staged(t, r).Columns {
			from, ok := r.cols[c.Name]
			switch {
			case ok && from.from != "" && !src.has(name, from.from):
				bad("column %s.%s: SQLite has no column %s", name, c.Name, from.from)
			case ok:
				used[from.from] = true
			case src.has(name, c.Name):
				used[c.Name] = true
			case c.Type != "xid8":
				bad("column %s.%s has no SQLite column", name, c.Name)
			}
			if _, err := converter(c); err != nil {
				bad("column %s.%s: %v", name, c.Name, err)
			}
			if _, sealed := r.sealed[c.Name]; strings.HasPrefix(c.Name, "sealed") && !sealed {
				bad("column %s.%s holds a sealed value the move does not know the label of", name, c.Name)
			}
		}
		for _, c := range r.reads {
			used[c] = true
		}
		for _, c := range cols {
			if !used[c] {
				bad("SQLite column %s.%s", name, c)
			}
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return nil, fmt.Errorf("the move does not know %s: a migration added them without saying what a move does with them", strings.Join(problems, "; "))
	}
	return &plan{order: parentsFirst(pg), pg: pg, src: src}, nil
}

// triggerSequences are the sequences a trigger numbers a column with:
// their columns are not theirs by a default or an identity.
var triggerSequences = map[string]pgRef{"command_changes": {Table: "commands", Column: "change_seq"}}

// follows names, for a table whose step needs another's done though no
// key of it references that table, the tables it comes after:
// event_values, which the events' copy writes batch by batch (its step
// counts them), and recent_event_ids, derived from the events copied.
var follows = map[string][]string{"event_values": {"events"}, "recent_event_ids": {"events"}}

// parentsFirst orders the tables so that each comes after those its
// foreign keys reference (and follows names), by name otherwise.
func parentsFirst(pg *pgSchema) []string {
	var names, order []string
	for n := range pg.Tables {
		names = append(names, n)
	}
	slices.Sort(names)
	placed := map[string]bool{}
	var place func(string)
	place = func(n string) {
		if placed[n] {
			return
		}
		placed[n] = true
		refs := make([]string, 0, len(pg.Tables[n].Refs))
		for _, ref := range pg.Tables[n].Refs {
			refs = append(refs, ref.Table)
		}
		for _, p := range follows[n] {
			if pg.Tables[p] != nil {
				refs = append(refs, p)
			}
		}
		slices.Sort(refs)
		for _, p := range refs {
			place(p)
		}
		order = append(order, n)
	}
	for _, n := range names {
		place(n)
	}
	return order
}

// Tables lists the treatment of every table the move knows, by name:
// the documentation's list, and its tests'.
func Tables() []Table {
	var out []Table
	for name, r := range tables {
		out = append(out, Table{Name: name, Treatment: r.treat, Why: r.why})
	}
	for _, n := range ftsShadow {
		r, _ := ruleOf(n)
		out = append(out, Table{Name: n, Treatment: r.treat, Why: r.why})
	}
	slices.SortFunc(out, func(a, b Table) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Table is a table and what a move does with it.
type Table struct {
	Name      string    `json:"table"`
	Treatment Treatment `json:"treatment"`
	Why       string    `json:"why,omitempty"`
}

package gatehouse

// What the stored events cost on disk, as `gatehouse bench bytes` reports
// it (docs/performance.md, "Bytes per event"): the events table, each of
// its indexes, and the tables kept beside it for each event (search
// terms, job spans, insight rollups), each in bytes and in bytes per
// event, and the stored size of each column of events.

// StoragePart says what a measured relation belongs to.
type StoragePart string

// The parts of a StorageReport.
const (
	// PartEvents is the events table: its rows, their TOAST and its indexes.
	PartEvents StoragePart = "events"
	// PartSide is a table kept beside the events and its indexes: what
	// storing an event costs outside its own row and indexes.
	PartSide StoragePart = "side"
)

// StorageKind says what kind of relation a StorageRelation is.
type StorageKind string

// The kinds of relation measured.
const (
	// KindTable is a table's rows (PostgreSQL: the main fork, the free
	// space and visibility maps; a side table's TOAST too).
	KindTable StorageKind = "table"
	// KindTOAST is, on PostgreSQL, the values the events keep out of
	// line, with their index.
	KindTOAST StorageKind = "toast"
	KindIndex StorageKind = "index"
)

// StorageRelation is one table, TOAST or index on disk.
type StorageRelation struct {
	Part  StoragePart `json:"part"`
	Kind  StorageKind `json:"kind"`
	Name  string      `json:"name"`
	Table string      `json:"table"` // the table it belongs to (its own name for a table)
	// Definition is an index's columns and condition, as the database
	// prints them ("(org, occurred_at DESC, id DESC) WHERE ...").
	Definition string `json:"definition,omitempty"`
	Bytes      int64  `json:"bytes"`
	// Rows is a table's row count; -1 for TOAST and indexes.
	Rows int64 `json:"rows"`
}

// ColumnSize is the average stored size of one column of events over a
// sample of rows: PostgreSQL's pg_column_size (0 for a null), SQLite's
// bytes in the record (its body and its type byte in the header).
type ColumnSize struct {
	Name     string  `json:"name"`
	Type     string  `json:"type"`
	AvgBytes float64 `json:"avgBytes"`
	NullRate float64 `json:"nullRate"` // share of the sampled rows where it is null
}

// StorageReport is what the events of a database cost on disk.
type StorageReport struct {
	Backend string `json:"backend"` // "postgres" or "sqlite"
	Method  string `json:"method"`  // how the sizes were read
	// Events counts every organization's events: the sizes are of the
	// tables, which every organization shares.
	Events int64 `json:"events"`
	// OrgEvents counts the organization's events when one was asked for;
	// the column sizes are then of its events alone.
	OrgEvents *int64 `json:"orgEvents,omitempty"`
	// AllBytes is every table and index of the database (SQLite: the
	// file's pages; PostgreSQL: the schema the events table is in).
	AllBytes int64 `json:"allBytes"`
	// FreeBytes is the part of AllBytes in free pages (SQLite's freelist).
	FreeBytes   int64             `json:"freeBytes"`
	Relations   []StorageRelation `json:"relations"`
	Columns     []ColumnSize      `json:"columns"`
	SampledRows int64             `json:"sampledRows"`
	// RowBytes is the average size of a whole sampled row as the
	// database stores it without the page's own costs (PostgreSQL: the
	// row as a datum, its header included; SQLite: the record and its
	// rowid).
	RowBytes float64 `json:"rowBytes"`
	// Notes say what the figures leave out or only approximate.
	Notes []string `json:"notes,omitempty"`
}

// StorageTotals sums a StorageReport by part.
type StorageTotals struct {
	EventsTable   int64 `json:"eventsTable"`   // the events' rows and TOAST
	EventsIndexes int64 `json:"eventsIndexes"` // the events' indexes
	Events        int64 `json:"events"`        // both: the bytes per event with indexes
	Side          int64 `json:"side"`          // the side tables and their indexes
	WithSide      int64 `json:"withSide"`      // Events and Side
	Other         int64 `json:"other"`         // AllBytes less WithSide: every other table
}

// Totals sums the report's relations by part.
func (r StorageReport) Totals() StorageTotals {
	var t StorageTotals
	for _, rel := range r.Relations {
		switch {
		case rel.Part == PartEvents && rel.Kind == KindIndex:
			t.EventsIndexes += rel.Bytes
		case rel.Part == PartEvents:
			t.EventsTable += rel.Bytes
		default:
			t.Side += rel.Bytes
		}
	}
	t.Events = t.EventsTable + t.EventsIndexes
	t.WithSide = t.Events + t.Side
	t.Other = r.AllBytes - t.WithSide
	return t
}

// PerEvent is bytes divided by the events stored, or 0 when there are none.
func (r StorageReport) PerEvent(bytes int64) float64 {
	if r.Events == 0 {
		return 0
	}
	return float64(bytes) / float64(r.Events)
}

// MaxStorageSample bounds the rows whose columns MeasureStorage averages.
const MaxStorageSample = 10_000_000

// CheckStorageSample returns a *[ValidationError] keyed "sample" unless
// sample is from 1 to MaxStorageSample.
func CheckStorageSample(sample int) error {
	if sample < 1 || sample > MaxStorageSample {
		return Invalid("sample", "must be from 1 to %d rows", MaxStorageSample)
	}
	return nil
}

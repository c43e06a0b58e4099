package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
)

// MeasureStorage implements gatehouse.StorageMeter through the dbstat
// virtual table, which modernc.org/sqlite compiles in
// (SQLITE_ENABLE_DBSTAT_VTAB): the pages of each table and index, unused
// space included. Without it, the file's pages alone are reported.
// Everything is read in one read transaction: one snapshot.
func (db *DB) MeasureStorage(ctx context.Context, orgID uuid.UUID, sample int) (_ gatehouse.StorageReport, err error) {
	defer sqlstore.Label(&err, "Store.MeasureStorage", orgID)
	var org int64
	if orgID != uuid.Nil {
		if org, err = db.orgSeq(ctx, db.read, orgID); err != nil {
			return gatehouse.StorageReport{}, err
		}
	}
	rep := gatehouse.StorageReport{Backend: "sqlite", Relations: []gatehouse.StorageRelation{}, Columns: []gatehouse.ColumnSize{},
		Method: "dbstat: the pages of each table and index; columns: the bytes of their values in the record, and their type in its header"}
	tx, err := db.read.DB.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return gatehouse.StorageReport{}, wrap(err)
	}
	defer tx.Rollback()
	var pageSize, pages, free int64
	if err := tx.QueryRowContext(ctx, "SELECT page_size, page_count, freelist_count FROM pragma_page_size, pragma_page_count, pragma_freelist_count").
		Scan(&pageSize, &pages, &free); err != nil {
		return gatehouse.StorageReport{}, wrap(err)
	}
	rep.AllBytes, rep.FreeBytes = pages*pageSize, free*pageSize
	// Organization 0 keeps at most one row, the position of a deleted one.
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM events WHERE org <> 0").Scan(&rep.Events); err != nil {
		return gatehouse.StorageReport{}, wrap(err)
	}
	sampled := rep.Events
	if org != 0 {
		var n int64
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM events WHERE org = ?", org).Scan(&n); err != nil {
			return gatehouse.StorageReport{}, wrap(err)
		}
		rep.OrgEvents, sampled = &n, n
	}
	sizes, err := btreeSizes(ctx, tx)
	if errors.Is(err, errNoDBStat) {
		rep.Method = "page_count and freelist_count: this SQLite has no dbstat, so no table or index is measured alone"
	} else if err != nil {
		return gatehouse.StorageReport{}, wrap(err)
	} else {
		if err := measureTables(ctx, tx, &rep, sizes); err != nil {
			return gatehouse.StorageReport{}, wrap(err)
		}
	}
	if err := measureColumns(ctx, tx, &rep, org, sampled, sample); err != nil {
		return gatehouse.StorageReport{}, wrap(err)
	}
	rep.Notes = append(rep.Notes, "all: the pages of the database file; an INTEGER PRIMARY KEY column is the row's rowid, counted as its varint")
	if st, err := os.Stat(db.path + "-wal"); err == nil && st.Size() > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("the write-ahead log holds %d bytes more, not counted: pages not yet copied into the file, or space it reuses", st.Size()))
	}
	return rep, nil
}

// errNoDBStat is a SQLite built without the dbstat virtual table.
var errNoDBStat = errors.New("no dbstat")

// btreeSizes returns the bytes of each b-tree of the file (tables,
// indexes, the shadow tables of virtual ones), by name.
func btreeSizes(ctx context.Context, tx *sql.Tx) (map[string]int64, error) {
	rows, err := tx.QueryContext(ctx, "SELECT name, pgsize FROM dbstat WHERE aggregate = TRUE")
	if err != nil {
		if strings.Contains(err.Error(), "no such table: dbstat") {
			return nil, errNoDBStat
		}
		return nil, err
	}
	defer rows.Close()
	sizes := map[string]int64{}
	for rows.Next() {
		var (
			name string
			size int64
		)
		if err := rows.Scan(&name, &size); err != nil {
			return nil, err
		}
		sizes[name] = size
	}
	return sizes, rows.Err()
}

// measureTables adds events and the side tables to the report, each with
// its indexes (and, for a virtual table such as search_terms_text, its
// shadow tables); a table the schema lacks adds nothing.
func measureTables(ctx context.Context, tx *sql.Tx, rep *gatehouse.StorageReport, sizes map[string]int64) error {
	tables := append([]string{"events"}, sqlstore.SideTables...)
	tables = append(tables, "search_terms_text")
	for i, table := range tables {
		part := gatehouse.PartSide
		if i == 0 {
			part = gatehouse.PartEvents
		}
		var virtual bool
		err := tx.QueryRowContext(ctx, "SELECT sql LIKE 'CREATE VIRTUAL%' FROM sqlite_schema WHERE type = 'table' AND name = ?", table).Scan(&virtual)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return err
		}
		if virtual {
			// Its shadow tables (FTS5: _data, _idx, _docsize, _config).
			if err := addRelations(ctx, tx, rep, sizes, part, gatehouse.KindTable, table,
				`SELECT name, '' FROM sqlite_schema WHERE type = 'table' AND name LIKE ? ESCAPE '\' ORDER BY name`,
				strings.ReplaceAll(table, "_", `\_`)+`\_%`); err != nil {
				return err
			}
			continue
		}
		rows := rep.Events
		if part != gatehouse.PartEvents {
			if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM "+quoteName(table)).Scan(&rows); err != nil {
				return err
			}
		}
		rep.Relations = append(rep.Relations, gatehouse.StorageRelation{Part: part, Kind: gatehouse.KindTable, Name: table, Table: table,
			Bytes: sizes[table], Rows: rows})
		if err := addRelations(ctx, tx, rep, sizes, part, gatehouse.KindIndex, table,
			`SELECT name, coalesce(sql, '') FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? ORDER BY name`, table); err != nil {
			return err
		}
	}
	return nil
}

// addRelations adds the b-trees query names (with the statement that
// made each) as relations of table.
func addRelations(ctx context.Context, tx *sql.Tx, rep *gatehouse.StorageReport, sizes map[string]int64,
	part gatehouse.StoragePart, kind gatehouse.StorageKind, table, query string, arg any) error {
	rows, err := tx.QueryContext(ctx, query, arg)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var name, create string
		if err := rows.Scan(&name, &create); err != nil {
			return err
		}
		r := gatehouse.StorageRelation{Part: part, Kind: kind, Name: name, Table: table, Bytes: sizes[name], Rows: -1}
		switch {
		case kind == gatehouse.KindTable:
			if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM "+quoteName(name)).Scan(&r.Rows); err != nil {
				return err
			}
		case create == "":
			r.Definition = "(a UNIQUE or PRIMARY KEY constraint)"
		default:
			r.Definition = sqlstore.IndexDefinition(create)
		}
		rep.Relations = append(rep.Relations, r)
	}
	return rows.Err()
}

// measureColumns averages the bytes each column of events takes in its
// rows' records over about sample rows (every k-th rowid), of the
// organization's when org is not 0, of which there are n. A value takes
// its body (an integer 0 to 8 bytes by its magnitude, text and blobs
// their length) and its serial type in the record's header (a varint);
// the INTEGER PRIMARY KEY is the rowid, a varint of the cell.
func measureColumns(ctx context.Context, tx *sql.Tx, rep *gatehouse.StorageReport, org, n int64, sample int) error {
	rows, err := tx.QueryContext(ctx, "SELECT name, type, pk FROM pragma_table_info('events') ORDER BY cid")
	if err != nil {
		return err
	}
	var (
		pks   []bool
		nKeys int
	)
	for rows.Next() {
		var (
			c  gatehouse.ColumnSize
			pk int
		)
		if err := rows.Scan(&c.Name, &c.Type, &pk); err != nil {
			rows.Close()
			return err
		}
		rep.Columns, pks = append(rep.Columns, c), append(pks, pk > 0)
		if pk > 0 {
			nKeys++
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil || n == 0 {
		return err
	}
	rowid := -1
	for i, c := range rep.Columns {
		if pks[i] && nKeys == 1 && strings.EqualFold(c.Type, "INTEGER") {
			rowid = i
		}
	}
	sel := []string{"count(*)"}
	var sum []string
	for i, c := range rep.Columns {
		col := quoteName(c.Name)
		size := recordBytes(col)
		if i == rowid { // null in the record (a type byte), the varint in the cell
			size = "1 + " + varintBytes(col)
		}
		sel = append(sel, "coalesce(avg("+size+"), 0)", "coalesce(avg("+col+" IS NULL), 0)")
		sum = append(sum, size)
	}
	// The row: its values, the varint of the header's length, the rowid.
	sel = append(sel, "coalesce(avg(1 + "+strings.Join(sum, " + ")+"), 0)")
	if rowid < 0 {
		sel[len(sel)-1] = "coalesce(avg(1 + " + strings.Join(sum, " + ") + " + " + varintBytes("rowid") + "), 0)"
	}
	step := max(1, n/int64(sample))
	query := "SELECT " + strings.Join(sel, ", ") + " FROM events WHERE rowid % ? = 0 AND (? = 0 OR org = ?)"
	dest := []any{&rep.SampledRows}
	for i := range rep.Columns {
		dest = append(dest, &rep.Columns[i].AvgBytes, &rep.Columns[i].NullRate)
	}
	dest = append(dest, &rep.RowBytes)
	if err := tx.QueryRowContext(ctx, query, step, org, org).Scan(dest...); err != nil {
		return err
	}
	if rep.SampledRows == 0 { // the organization's rowids missed every step
		return tx.QueryRowContext(ctx, query, 1, org, org).Scan(dest...)
	}
	return nil
}

// recordBytes is the SQL expression of the bytes column takes in a
// record: its body and its serial type's varint in the header.
func recordBytes(col string) string {
	return `CASE typeof(` + col + `)
		WHEN 'null' THEN 1
		WHEN 'integer' THEN 1 + CASE WHEN ` + col + ` BETWEEN 0 AND 1 THEN 0 WHEN ` + col + ` BETWEEN -128 AND 127 THEN 1
			WHEN ` + col + ` BETWEEN -32768 AND 32767 THEN 2 WHEN ` + col + ` BETWEEN -8388608 AND 8388607 THEN 3
			WHEN ` + col + ` BETWEEN -2147483648 AND 2147483647 THEN 4 WHEN ` + col + ` BETWEEN -140737488355328 AND 140737488355327 THEN 6
			ELSE 8 END
		WHEN 'real' THEN 9
		ELSE length(CAST(` + col + ` AS BLOB)) + CASE WHEN 2 * length(CAST(` + col + ` AS BLOB)) + 13 < 128 THEN 1
			WHEN 2 * length(CAST(` + col + ` AS BLOB)) + 13 < 16384 THEN 2 ELSE 3 END
		END`
}

// varintBytes is the SQL expression of the bytes of a SQLite varint
// holding the non-negative integer expr.
func varintBytes(expr string) string {
	return `CASE WHEN ` + expr + ` < 128 THEN 1 WHEN ` + expr + ` < 16384 THEN 2 WHEN ` + expr + ` < 2097152 THEN 3
		WHEN ` + expr + ` < 268435456 THEN 4 WHEN ` + expr + ` < 34359738368 THEN 5 WHEN ` + expr + ` < 4398046511104 THEN 6
		WHEN ` + expr + ` < 562949953421312 THEN 7 WHEN ` + expr + ` < 72057594037927936 THEN 8 ELSE 9 END`
}

// quoteName quotes an identifier for SQLite.
func quoteName(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

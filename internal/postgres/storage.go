package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// MeasureStorage implements gatehouse.StorageMeter. A relation is the sum
// of its partitions when partitioned (pg_partition_tree, which lists
// none of a table that is not), so the report reads the same before and after events are
// partitioned. Everything is read in one snapshot, without the
// statement timeout: counting the events of a large table takes longer.
func (db *DB) MeasureStorage(ctx context.Context, orgID uuid.UUID, sample int) (_ gatehouse.StorageReport, err error) {
	defer sqlstore.Label(&err, "Store.MeasureStorage", orgID)
	var org int64
	if orgID != uuid.Nil {
		if org, err = db.orgSeq(ctx, db.pool, orgID); err != nil {
			return gatehouse.StorageReport{}, err
		}
	}
	rep := gatehouse.StorageReport{Backend: "postgres", Relations: []gatehouse.StorageRelation{}, Columns: []gatehouse.ColumnSize{},
		Method: "pg_relation_size of each relation and its partitions; columns: pg_column_size over TABLESAMPLE SYSTEM"}
	err = pgx.BeginTxFunc(ctx, db.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SET LOCAL statement_timeout = 0"); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, "SELECT count(*) FROM events").Scan(&rep.Events); err != nil {
			return err
		}
		sampled := rep.Events
		if org != 0 {
			var n int64
			if err := tx.QueryRow(ctx, "SELECT count(*) FROM events WHERE org = $1", org).Scan(&n); err != nil {
				return err
			}
			rep.OrgEvents, sampled = &n, n
		}
		if err := measureTable(ctx, tx, &rep, gatehouse.PartEvents, "events"); err != nil {
			return err
		}
		for _, table := range sqlstore.SideTables {
			if err := measureTable(ctx, tx, &rep, gatehouse.PartSide, table); err != nil {
				return err
			}
		}
		if err := measureColumns(ctx, tx, &rep, org, sampled, sample); err != nil {
			return err
		}
		// Every table of the schema events is in, with its indexes and
		// TOAST: the parent of partitions holds nothing, its partitions
		// are tables of their own.
		return tx.QueryRow(ctx, `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c
			WHERE c.relnamespace = (SELECT relnamespace FROM pg_class WHERE oid = 'events'::regclass)
			AND c.relkind IN ('r', 'm', 'S')`).Scan(&rep.AllBytes)
	})
	if err != nil {
		return gatehouse.StorageReport{}, wrap(err)
	}
	rep.Notes = append(rep.Notes, "all: every table of the schema with its indexes and TOAST (pg_total_relation_size), not the database's catalogs")
	return rep, nil
}

// measureTable adds a table's rows, TOAST and indexes to the report, each
// summed over its partitions; a table the schema lacks adds nothing.
func measureTable(ctx context.Context, tx pgx.Tx, rep *gatehouse.StorageReport, part gatehouse.StoragePart, table string) error {
	var exists bool
	if err := tx.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", table).Scan(&exists); err != nil || !exists {
		return err
	}
	// The main fork and the maps beside it are the rows; pg_table_size
	// adds the TOAST table and its index.
	var heap, toast, rows int64
	err := tx.QueryRow(ctx, `SELECT coalesce(sum(pg_relation_size(relid, 'main') + pg_relation_size(relid, 'fsm') + pg_relation_size(relid, 'vm')), 0)::bigint,
			coalesce(sum(pg_table_size(relid) - pg_relation_size(relid, 'main') - pg_relation_size(relid, 'fsm') - pg_relation_size(relid, 'vm')), 0)::bigint
		FROM (SELECT relid FROM pg_partition_tree($1::regclass) UNION SELECT $1::regclass) t`, table).Scan(&heap, &toast)
	if err != nil {
		return err
	}
	if part == gatehouse.PartEvents {
		rows = rep.Events
	} else if err := tx.QueryRow(ctx, "SELECT count(*) FROM "+pgx.Identifier{table}.Sanitize()).Scan(&rows); err != nil {
		return err
	}
	if part == gatehouse.PartEvents {
		rep.Relations = append(rep.Relations,
			gatehouse.StorageRelation{Part: part, Kind: gatehouse.KindTable, Name: table, Table: table, Bytes: heap, Rows: rows},
			gatehouse.StorageRelation{Part: part, Kind: gatehouse.KindTOAST, Name: table + " (TOAST)", Table: table, Bytes: toast, Rows: -1})
	} else { // a side table's TOAST is its empty table and index
		rep.Relations = append(rep.Relations,
			gatehouse.StorageRelation{Part: part, Kind: gatehouse.KindTable, Name: table, Table: table, Bytes: heap + toast, Rows: rows})
	}
	idx, _ := tx.Query(ctx, `SELECT c.relname, pg_get_indexdef(i.indexrelid),
			(SELECT coalesce(sum(pg_relation_size(t.relid)), 0)::bigint
				FROM (SELECT relid FROM pg_partition_tree(i.indexrelid) UNION SELECT i.indexrelid::regclass) t)
		FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE i.indrelid = $1::regclass ORDER BY c.relname`, table)
	var r gatehouse.StorageRelation
	_, err = pgx.ForEachRow(idx, []any{&r.Name, &r.Definition, &r.Bytes}, func() error {
		rep.Relations = append(rep.Relations, gatehouse.StorageRelation{Part: part, Kind: gatehouse.KindIndex, Name: r.Name, Table: table,
			Definition: sqlstore.IndexDefinition(r.Definition), Bytes: r.Bytes, Rows: -1})
		return nil
	})
	return err
}

// measureColumns averages pg_column_size of each column of events (0 for
// a null) over about sample rows, of the organization's when org is not
// 0, of which there are n: a share of the table's pages
// (TABLESAMPLE SYSTEM, the same pages every run), or all of them when
// the sample is as large.
func measureColumns(ctx context.Context, tx pgx.Tx, rep *gatehouse.StorageReport, org, n int64, sample int) error {
	rows, _ := tx.Query(ctx, `SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
		WHERE attrelid = 'events'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`)
	var c gatehouse.ColumnSize
	if _, err := pgx.ForEachRow(rows, []any{&c.Name, &c.Type}, func() error {
		rep.Columns = append(rep.Columns, c)
		return nil
	}); err != nil || n == 0 {
		return err
	}
	sel := []string{"count(*)", "coalesce(avg(pg_column_size(e.*)), 0)::float8"}
	for _, col := range rep.Columns {
		id := "e." + pgx.Identifier{col.Name}.Sanitize()
		sel = append(sel, "coalesce(avg(coalesce(pg_column_size("+id+"), 0)), 0)::float8",
			"(count(*) - count("+id+"))::float8 / greatest(count(*), 1)")
	}
	from := "events e"
	if share := 100 * float64(sample) / float64(n); share < 100 {
		from += fmt.Sprintf(" TABLESAMPLE SYSTEM (%g) REPEATABLE (1)", share)
	}
	query := "SELECT " + strings.Join(sel, ", ") + " FROM " + from + " WHERE $1::bigint = 0 OR e.org = $1"
	dest := []any{&rep.SampledRows, &rep.RowBytes}
	for i := range rep.Columns {
		dest = append(dest, &rep.Columns[i].AvgBytes, &rep.Columns[i].NullRate)
	}
	if err := tx.QueryRow(ctx, query, org).Scan(dest...); err != nil {
		return err
	}
	if rep.SampledRows == 0 { // the pages drawn held none of the organization's
		query = strings.Replace(query, " FROM "+from+" WHERE $1::bigint = 0 OR e.org = $1",
			" FROM (SELECT * FROM events WHERE $1::bigint = 0 OR org = $1 LIMIT $2) e", 1)
		return tx.QueryRow(ctx, query, org, sample).Scan(dest...)
	}
	return nil
}

package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// This file is the database's side of sharding (internal/shards): the
// id that names a database as a shard, and the directory of organizations
// placed on shards, which only the --db database fills (migration 0030).

// directoryChannel carries the organization of each change of the
// directory to every instance (the trigger of migration 0030).
const directoryChannel = "gatehouse_directory"

// directoryPing is how often the directory's listener makes a round trip
// on its connection: PostgreSQL delivers a notification committed before
// a query before that query's answer, so each answer proves every earlier
// change heard.
const directoryPing = 200 * time.Millisecond

// ShardID returns the id that names this database as a shard, generating
// and storing it on first use, as Secret does: the directory names shards
// by it, so that a shard keeps its organizations when its address changes.
func (db *DB) ShardID(ctx context.Context) (_ uuid.UUID, err error) {
	defer sqlstore.Label(&err, "Store.ShardID")
	return db.shardID(ctx)
}

func (db *DB) shardID(ctx context.Context) (uuid.UUID, error) {
	id, err := db.settingOnce(ctx, "shard", []byte(uuid.New().String()))
	if err != nil {
		return uuid.Nil, err
	}
	return uuid.Parse(string(id))
}

// settingOnce returns the setting name, storing candidate as its value
// when it has none. Of instances that start at once on a new database,
// one stores its candidate and the others read it: one whose insert found
// the winner's row, not yet visible to its statement, reads again.
func (db *DB) settingOnce(ctx context.Context, name string, candidate []byte) ([]byte, error) {
	var value []byte
	err := db.pool.QueryRow(ctx, `WITH ins AS (
		INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING value)
		SELECT value FROM ins UNION ALL SELECT value FROM settings WHERE name = $1 LIMIT 1`, name, candidate).Scan(&value)
	if errors.Is(err, pgx.ErrNoRows) {
		err = db.pool.QueryRow(ctx, `SELECT value FROM settings WHERE name = $1`, name).Scan(&value)
	}
	return value, wrap(err)
}

// MarkShardOf records in this database that it is a shard of the --db
// whose shard id is main, so that it is never taken for a --db itself (a
// command given it as --db would make organizations no directory names).
// ErrConflict when it is already a shard of another --db.
func (db *DB) MarkShardOf(ctx context.Context, main uuid.UUID) (err error) {
	defer sqlstore.Label(&err, "Store.MarkShardOf")
	of, err := db.settingOnce(ctx, "shard_of", []byte(main.String()))
	if err != nil {
		return err
	}
	if string(of) != main.String() {
		return fmt.Errorf("%w: this database is a shard of the --db whose shard id is %s, not of %s", gatehouse.ErrConflict, of, main)
	}
	return nil
}

// ShardOfMain returns the shard id of the --db this database is a shard
// of (MarkShardOf), and false when it is none's.
func (db *DB) ShardOfMain(ctx context.Context) (_ uuid.UUID, shard bool, err error) {
	defer sqlstore.Label(&err, "Store.ShardOfMain")
	var of []byte
	err = db.pool.QueryRow(ctx, `SELECT value FROM settings WHERE name = 'shard_of'`).Scan(&of)
	if errors.Is(err, pgx.ErrNoRows) {
		return uuid.Nil, false, nil
	}
	if err != nil {
		return uuid.Nil, false, wrap(err)
	}
	id, err := uuid.Parse(string(of))
	return id, err == nil, err
}

// PlaceOrganization records in the directory that org lives on shard.
func (db *DB) PlaceOrganization(ctx context.Context, org, shard uuid.UUID) (err error) {
	defer sqlstore.Label(&err, "Store.PlaceOrganization", org)
	_, err = db.pool.Exec(ctx, `INSERT INTO organization_shards (org, shard) VALUES ($1, $2)
		ON CONFLICT (org) DO UPDATE SET shard = EXCLUDED.shard, placed_at = now()`, org, shard)
	return wrap(err)
}

// UnplaceOrganization removes org from the directory: it lives in this
// database again, or nowhere (a creation that failed on its shard).
func (db *DB) UnplaceOrganization(ctx context.Context, org uuid.UUID) (err error) {
	defer sqlstore.Label(&err, "Store.UnplaceOrganization", org)
	_, err = db.pool.Exec(ctx, `DELETE FROM organization_shards WHERE org = $1`, org)
	return wrap(err)
}

// DirectoryEntry is where the directory places an organization.
type DirectoryEntry struct {
	Shard  uuid.UUID // uuid.Nil when Placed is false
	Placed bool      // false: the organization lives in this database
	// Moving: `gatehouse shard move` is copying the organization to
	// another shard; routers hold its calls until the entry changes.
	Moving bool
}

// ShardOf returns where the directory places org.
func (db *DB) ShardOf(ctx context.Context, org uuid.UUID) (_ DirectoryEntry, err error) {
	defer sqlstore.Label(&err, "Store.ShardOf", org)
	return directoryEntry(ctx, db.pool, org)
}

// ShardOfOn is ShardOf on conn, a connection of the --db database: the
// check a router runs as a call takes a connection of --db
// (DB.CheckAcquire) reads the directory on that connection rather than
// take another from the pool it waits on.
func ShardOfOn(ctx context.Context, conn *pgx.Conn, org uuid.UUID) (_ DirectoryEntry, err error) {
	defer sqlstore.Label(&err, "Store.ShardOf", org)
	return directoryEntry(ctx, conn, org)
}

func directoryEntry(ctx context.Context, q querier, org uuid.UUID) (DirectoryEntry, error) {
	var e DirectoryEntry
	err := q.QueryRow(ctx, `SELECT shard, moving FROM organization_shards WHERE org = $1`, org).Scan(&e.Shard, &e.Moving)
	if errors.Is(err, pgx.ErrNoRows) {
		return DirectoryEntry{}, nil
	}
	e.Placed = err == nil
	return e, wrap(err)
}

// MarkMoving marks org as being moved away from shard (this database's
// own shard id when the directory does not place it), so that every
// router holds its calls. ErrConflict unless the directory still places
// it there, unmarked: one move of an organization at a time, and none
// from where it no longer lives.
func (db *DB) MarkMoving(ctx context.Context, org, shard uuid.UUID) (err error) {
	defer sqlstore.Label(&err, "Store.MarkMoving", org)
	self, err := db.shardID(ctx)
	if err != nil {
		return err
	}
	tag, err := db.pool.Exec(ctx, `UPDATE organization_shards SET moving = true WHERE org = $1 AND shard = $2 AND NOT moving`, org, shard)
	if err == nil && tag.RowsAffected() == 0 && shard == self {
		// Not placed: it lives here, unless a row appeared meanwhile.
		tag, err = db.pool.Exec(ctx, `INSERT INTO organization_shards (org, shard, moving) VALUES ($1, $2, true) ON CONFLICT DO NOTHING`, org, shard)
	}
	if err == nil && tag.RowsAffected() == 0 {
		return fmt.Errorf("%w: organization %s is being moved already, or no longer lives on shard %s (gatehouse shard list; "+
			"a move that stopped half-way: docs/deploy.md, \"A move that stopped half-way\")", gatehouse.ErrConflict, org, shard)
	}
	return wrap(err)
}

// EndMove ends the move of org from the shard from, placing it on the
// shard to (which may be from: the move gave up); a shard equal to this
// database's own id removes its entry, since an organization the
// directory does not place lives here. ErrConflict when the directory no
// longer marks it moving from there.
func (db *DB) EndMove(ctx context.Context, org, from, to uuid.UUID) (err error) {
	defer sqlstore.Label(&err, "Store.EndMove", org)
	self, err := db.shardID(ctx)
	if err != nil {
		return err
	}
	var tag pgconn.CommandTag
	if to == self {
		tag, err = db.pool.Exec(ctx, `DELETE FROM organization_shards WHERE org = $1 AND moving AND shard = $2`, org, from)
	} else {
		tag, err = db.pool.Exec(ctx, `UPDATE organization_shards SET shard = $3, moving = false, placed_at = now()
			WHERE org = $1 AND moving AND shard = $2`, org, from, to)
	}
	if err == nil && tag.RowsAffected() == 0 {
		return fmt.Errorf("%w: the directory no longer marks organization %s moving from shard %s", gatehouse.ErrConflict, org, from)
	}
	return wrap(err)
}

// Placements returns how many organizations the directory places on
// each shard.
func (db *DB) Placements(ctx context.Context) (_ map[uuid.UUID]int, err error) {
	defer sqlstore.Label(&err, "Store.Placements")
	rows, err := db.pool.Query(ctx, `SELECT shard, count(*) FROM organization_shards GROUP BY shard`)
	if err != nil {
		return nil, wrap(err)
	}
	counts := map[uuid.UUID]int{}
	var shard uuid.UUID
	var n int
	_, err = pgx.ForEachRow(rows, []any{&shard, &n}, func() error {
		counts[shard] = n
		return nil
	})
	return counts, wrap(err)
}

// WatchDirectory calls changed with the organization of each change of
// the directory, made by any instance, until ctx ends; and with uuid.Nil
// each time it (re)connects, since a change may have been missed while it
// was not listening. It calls caughtUp, about every directoryPing, with a
// time before which every change has been heard: a router trusts its
// cached entries only while that is recent (internal/shards).
func (db *DB) WatchDirectory(ctx context.Context, changed func(org uuid.UUID), caughtUp func(time.Time)) (err error) {
	defer sqlstore.Label(&err, "Store.WatchDirectory")
	return db.keepListening(ctx, func() bool {
		return db.listenOn(ctx, directoryChannel, directoryPing, caughtUp, func() { changed(uuid.Nil) }, func(payload string) {
			// An empty payload (a TRUNCATE) changed every entry.
			if org, err := uuid.Parse(payload); err == nil || payload == "" {
				changed(org)
			}
		})
	})
}

// CreateOrganizationAs stores o, a new organization whose id and time
// its caller chose (sqlstore.NewOrganization): a router places it on a
// shard before it exists there.
func (db *DB) CreateOrganizationAs(ctx context.Context, e gatehouse.AuditEntry, o gatehouse.Organization) (_ gatehouse.Organization, err error) {
	defer sqlstore.Label(&err, "Store.CreateOrganizationAs", o.ID)
	return db.createOrganization(ctx, e, o)
}

// createOrganization stores o and the entry of its creation.
func (db *DB) createOrganization(ctx context.Context, e gatehouse.AuditEntry, o gatehouse.Organization) (gatehouse.Organization, error) {
	return o, db.withTx(ctx, func(tx pgx.Tx) error {
		var seq int64
		if err := tx.QueryRow(ctx, "INSERT INTO organizations (id, name, created_at) VALUES ($1, $2, $3) RETURNING seq",
			o.ID, o.Name, time.Time(o.CreatedAt)).Scan(&seq); err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, seq, e.Of(o.ID, gatehouse.AuditTarget{Type: gatehouse.TargetOrganization, ID: o.ID, Name: o.Name}))
	})
}

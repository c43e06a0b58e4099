package postgres

import (
	"context"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// This file is the database's side of sharding (internal/shards): the
// id that names a database as a shard, and the directory of organizations
// placed on shards, which only the --db database fills (migration 0030).

// directoryChannel carries the organization of each change of the
// directory to every instance (the trigger of migration 0030).
const directoryChannel = "gatehouse_directory"

// ShardID returns the id that names this database as a shard, generating
// and storing it on first use, as Secret does: the directory names shards
// by it, so that a shard keeps its organizations when its address changes.
func (db *DB) ShardID(ctx context.Context) (_ uuid.UUID, err error) {
	defer sqlstore.Label(&err, "Store.ShardID")
	var id []byte
	err = db.pool.QueryRow(ctx, `WITH ins AS (
		INSERT INTO settings (name, value) VALUES ('shard', $1) ON CONFLICT DO NOTHING RETURNING value)
		SELECT value FROM ins UNION ALL SELECT value FROM settings WHERE name = 'shard' LIMIT 1`, uuid.New().String()).Scan(&id)
	if err != nil {
		return uuid.Nil, wrap(err)
	}
	return uuid.Parse(string(id))
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

// ShardOf returns the shard the directory places org on, and false when
// it places it nowhere: the organization lives in this database.
func (db *DB) ShardOf(ctx context.Context, org uuid.UUID) (_ uuid.UUID, placed bool, err error) {
	defer sqlstore.Label(&err, "Store.ShardOf", org)
	var shard uuid.UUID
	err = db.pool.QueryRow(ctx, `SELECT shard FROM organization_shards WHERE org = $1`, org).Scan(&shard)
	if err == pgx.ErrNoRows {
		return uuid.Nil, false, nil
	}
	return shard, err == nil, wrap(err)
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
// was not listening.
func (db *DB) WatchDirectory(ctx context.Context, changed func(org uuid.UUID)) (err error) {
	defer sqlstore.Label(&err, "Store.WatchDirectory")
	return db.keepListening(ctx, func() bool {
		return db.listenOn(ctx, directoryChannel, func() { changed(uuid.Nil) }, func(payload string) {
			if org, err := uuid.Parse(payload); err == nil {
				changed(org)
			}
		})
	})
}

// CreateOrganizationAs stores o, a new organization whose id and time
// its caller chose (sqlstore.NewOrganization): a router places it on a
// shard before it exists there.
func (db *DB) CreateOrganizationAs(ctx context.Context, e gatehouse.AuditEntry, o gatehouse.Organization) (_ gatehouse.Organization, err error) {
	defer sqlstore.Label(&err, "Store.CreateOrganization")
	return o, db.withTx(ctx, func(tx pgx.Tx) error {
		var seq int64
		if err := tx.QueryRow(ctx, "INSERT INTO organizations (id, name, created_at) VALUES ($1, $2, $3) RETURNING seq",
			o.ID, o.Name, time.Time(o.CreatedAt)).Scan(&seq); err != nil {
			return err
		}
		return db.appendAudit(ctx, tx, seq, e.Of(o.ID, gatehouse.AuditTarget{Type: gatehouse.TargetOrganization, ID: o.ID, Name: o.Name}))
	})
}

package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Heartbeat records a sync of the organization's server. Its players are
// rewritten in server_players only when its list or universe changed
// since its last sync (players_digest): a server syncs every few seconds,
// its players change far less often.
func (db *DB) Heartbeat(ctx context.Context, orgID uuid.UUID, s gatehouse.GameServer, caps gatehouse.ServerCaps) (err error) {
	defer sqlstore.Label(&err, "Store.Heartbeat", orgID)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if err != nil {
		return err
	}
	players := s.Players
	if players == nil {
		players = []string{}
	}
	full, _ := json.Marshal(players)
	digest := sha256.Sum256(full)
	seen, started := gatehouse.Truncate(s.SeenAt), gatehouse.Truncate(s.StartedAt)
	// Mostly a server syncs again with the same universe and players: one
	// round trip, and no wait for the WAL to reach the disk. seen_at is
	// soft state that the next sync rewrites: a crash of the database that
	// loses the last fraction of a second loses nothing a server does not
	// say again within MaxSyncWait, and a thousand syncs no longer queue
	// to flush the WAL one after the other. The update re-reads a row
	// another sync changed meanwhile, so it applies only to the list and
	// universe it compared, stored whole (a list cut at the players' cap
	// is tried again).
	batch := &pgx.Batch{}
	batch.Queue("SELECT set_config('synchronous_commit', 'off', true)")
	seenAgain := batch.Queue(`UPDATE game_servers SET place_id = $3, seen_at = $4
		WHERE org = $1 AND job_id = $2 AND players_digest = $5 AND universe_id = $6 AND player_count = $7`,
		org, s.JobID, s.PlaceID, seen, digest[:], s.UniverseID, len(players))
	var again bool
	seenAgain.Exec(func(tag pgconn.CommandTag) error {
		again = tag.RowsAffected() == 1
		return nil
	})
	if err := db.pool.SendBatch(ctx, batch).Close(); err != nil || again {
		return wrap(err)
	}
	return db.withTx(ctx, func(tx pgx.Tx) error {
		// The server's row is locked first, so that two syncs of one
		// server write its players one after the other.
		var (
			oldDigest   []byte
			oldUniverse string
			oldCount    int
		)
		err := tx.QueryRow(ctx, "SELECT players_digest, universe_id, player_count FROM game_servers WHERE org = $1 AND job_id = $2 FOR UPDATE",
			org, s.JobID).Scan(&oldDigest, &oldUniverse, &oldCount)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		held := err == nil
		changed := !held || string(oldDigest) != string(digest[:]) || oldUniverse != s.UniverseID || oldCount < len(players)
		if !changed {
			// Another sync of the server wrote this list meanwhile.
			_, err := tx.Exec(ctx, "UPDATE game_servers SET place_id = $3, seen_at = $4 WHERE org = $1 AND job_id = $2",
				org, s.JobID, s.PlaceID, seen)
			return err
		}
		stored, err := db.admitPlayers(ctx, tx, org, held, oldCount, players, caps)
		if err != nil {
			return err
		}
		list := full
		if len(stored) < len(players) {
			list, _ = json.Marshal(stored)
		}
		_, err = tx.Exec(ctx, `INSERT INTO game_servers (org, job_id, universe_id, place_id, players, players_digest, started_at, seen_at, player_count)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
			ON CONFLICT (org, job_id) DO UPDATE SET universe_id = excluded.universe_id, place_id = excluded.place_id,
				players = excluded.players, players_digest = excluded.players_digest, seen_at = excluded.seen_at,
				player_count = excluded.player_count`,
			org, s.JobID, s.UniverseID, s.PlaceID, string(list), digest[:], started, seen, len(stored))
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "DELETE FROM server_players WHERE org = $1 AND job_id = $2", org, s.JobID); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO server_players (org, universe_id, platform_user_id, job_id)
			SELECT $1, $2, p, $3 FROM unnest($4::text[]) AS p ON CONFLICT DO NOTHING`, org, s.UniverseID, s.JobID, stored)
		return err
	})
}

// admitPlayers applies the organization's caps (gatehouse.Store.Heartbeat)
// to a server's new list: ErrTooManyServers for a server it does not
// hold yet past either cap, else the players that fit. The sums run only
// for a new server and a list that grows; a new server first locks its
// organization's row, so that two first syncs at once cannot both take
// the last place.
func (db *DB) admitPlayers(ctx context.Context, tx pgx.Tx, org int64, held bool, oldCount int, players []string, caps gatehouse.ServerCaps) ([]string, error) {
	if held && len(players) <= oldCount {
		return players, nil
	}
	if !held {
		if _, err := tx.Exec(ctx, "SELECT 1 FROM organizations WHERE seq = $1 FOR NO KEY UPDATE", org); err != nil {
			return nil, err
		}
	}
	var servers, total int
	if err := tx.QueryRow(ctx, "SELECT count(*), coalesce(sum(player_count), 0) FROM game_servers WHERE org = $1", org).Scan(&servers, &total); err != nil {
		return nil, err
	}
	if !held && (servers >= caps.Servers || total+len(players) > caps.Players) {
		return nil, gatehouse.ErrTooManyServers
	}
	if room := caps.Players - (total - oldCount); len(players) > room {
		return players[:max(room, 0)], nil
	}
	return players, nil
}

// NamesUniverse reports whether a location of the organization names the
// universe.
func (db *DB) NamesUniverse(ctx context.Context, orgID uuid.UUID, universeID string) (_ bool, err error) {
	defer sqlstore.Label(&err, "Store.NamesUniverse", orgID)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var named bool
	err = db.pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM locations WHERE org = $1 AND universe_id = $2)", org, universeID).Scan(&named)
	return named, wrap(err)
}

// LiveServers returns the organization's servers of a universe seen at or
// after since, most recently seen first.
func (db *DB) LiveServers(ctx context.Context, orgID uuid.UUID, universeID string, since time.Time, player *string) (_ []gatehouse.GameServer, err error) {
	defer sqlstore.Label(&err, "Store.LiveServers", orgID)
	org, err := db.orgSeq(ctx, db.pool, orgID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return []gatehouse.GameServer{}, nil
	}
	if err != nil {
		return nil, err
	}
	query := `SELECT g.job_id, g.universe_id, g.place_id, g.players, g.seen_at, g.started_at FROM game_servers g
		WHERE g.org = $1 AND g.universe_id = $2 AND g.seen_at >= $3`
	args := []any{org, universeID, since}
	if player != nil {
		query += ` AND g.job_id IN (SELECT p.job_id FROM server_players p
			WHERE p.org = $1 AND p.universe_id = $2 AND p.platform_user_id = $4)`
		args = append(args, *player)
	}
	rows, _ := db.pool.Query(ctx, query+` ORDER BY g.seen_at DESC, g.job_id COLLATE "C"`, args...)
	servers, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (gatehouse.GameServer, error) {
		var s gatehouse.GameServer
		err := row.Scan(&s.JobID, &s.UniverseID, &s.PlaceID, &s.Players, &s.SeenAt, &s.StartedAt)
		s.SeenAt, s.StartedAt = s.SeenAt.UTC(), s.StartedAt.UTC()
		return s, err
	})
	if err != nil {
		return nil, wrap(err)
	}
	if servers == nil {
		servers = []gatehouse.GameServer{}
	}
	return servers, nil
}

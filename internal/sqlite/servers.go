package sqlite

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// Heartbeat records a sync of an organization's game server. The player
// list is rewritten only when it changed (its digest differs): a server
// syncs every few seconds and its players change far less often.
func (db *DB) Heartbeat(ctx context.Context, orgID uuid.UUID, s gatehouse.GameServer) error {
	players := s.Players
	if players == nil {
		players = []string{}
	}
	list, err := json.Marshal(players)
	if err != nil {
		return err
	}
	digest := sha256.Sum256(append([]byte(s.UniverseID+"\n"), list...))
	return db.withHotTx(ctx, func(tx querier) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		var old []byte
		err = tx.QueryRowContext(ctx, heartbeatDigest, org, s.JobID).Scan(&old)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if _, err := tx.ExecContext(ctx, heartbeatServer,
			org, s.JobID, s.UniverseID, optString(s.PlaceID), string(list), digest[:], millis(s.StartedAt), millis(s.SeenAt)); err != nil {
			return err
		}
		if bytes.Equal(old, digest[:]) {
			return nil
		}
		return setPlayers(ctx, tx, org, s.JobID, s.UniverseID, players)
	})
}

// heartbeatDigest reads the digest of the players a server last sent: ?
// org, job.
const heartbeatDigest = "SELECT players_digest FROM game_servers WHERE org = ? AND job_id = ?"

// heartbeatServer creates or updates a server's row; started_at is kept
// from its first sync.
const heartbeatServer = `INSERT INTO game_servers
	(org, job_id, universe_id, place_id, players, players_digest, started_at, seen_at)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (org, job_id) DO UPDATE SET universe_id = excluded.universe_id, place_id = excluded.place_id,
		players = excluded.players, players_digest = excluded.players_digest, seen_at = excluded.seen_at`

const (
	clearPlayers = "DELETE FROM server_players WHERE org = ? AND job_id = ?"
	addPlayer    = `INSERT INTO server_players (org, universe_id, platform_user_id, job_id)
		VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`
)

// setPlayers replaces the rows that say who is on the server.
func setPlayers(ctx context.Context, q querier, org int64, jobID, universeID string, players []string) error {
	if _, err := q.ExecContext(ctx, clearPlayers, org, jobID); err != nil {
		return err
	}
	for _, p := range players {
		if _, err := q.ExecContext(ctx, addPlayer, org, universeID, p, jobID); err != nil {
			return err
		}
	}
	return nil
}

// NamesUniverse reports whether a location of the organization names the
// universe.
func (db *DB) NamesUniverse(ctx context.Context, orgID uuid.UUID, universeID string) (bool, error) {
	org, err := db.orgSeq(ctx, db.read, orgID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var named bool
	err = db.read.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM locations WHERE org = ? AND universe_id = ?)", org, universeID).Scan(&named)
	return named, wrap(err)
}

// LiveServers returns an organization's servers of a universe seen at or
// after since, most recently seen first.
func (db *DB) LiveServers(ctx context.Context, orgID uuid.UUID, universeID string, since time.Time, player *string) ([]gatehouse.GameServer, error) {
	org, err := db.orgSeq(ctx, db.read, orgID)
	if errors.Is(err, gatehouse.ErrNotFound) {
		return []gatehouse.GameServer{}, nil
	}
	if err != nil {
		return nil, err
	}
	query := `SELECT s.job_id, s.universe_id, s.place_id, s.players, s.seen_at, s.started_at FROM game_servers s
		WHERE s.org = ? AND s.universe_id = ? AND s.seen_at >= ?`
	args := []any{org, universeID, millis(since)}
	if player != nil {
		query += ` AND s.job_id IN (SELECT p.job_id FROM server_players p
			WHERE p.org = ? AND p.universe_id = ? AND p.platform_user_id = ?)`
		args = append(args, org, universeID, *player)
	}
	rows, err := db.read.QueryContext(ctx, query+" ORDER BY s.seen_at DESC, s.job_id", args...)
	if err != nil {
		return nil, wrap(err)
	}
	defer rows.Close()
	out := []gatehouse.GameServer{}
	for rows.Next() {
		var (
			s             gatehouse.GameServer
			place         sql.NullString
			list          string
			seen, started int64
		)
		if err := rows.Scan(&s.JobID, &s.UniverseID, &place, &list, &seen, &started); err != nil {
			return nil, wrap(err)
		}
		if err := json.Unmarshal([]byte(list), &s.Players); err != nil {
			return nil, err
		}
		s.PlaceID, s.SeenAt, s.StartedAt = fromOptString(place), fromMillis(seen), fromMillis(started)
		out = append(out, s)
	}
	return out, wrap(rows.Err())
}

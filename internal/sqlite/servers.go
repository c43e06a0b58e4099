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
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
)

// Heartbeat records a sync of an organization's game server. The player
// list is rewritten only when it changed (its digest differs): a server
// syncs every few seconds and its players change far less often. The
// organization's servers and players are summed (one index entry per
// server) only for a server it does not hold yet and for a list that
// grows: the caps of gatehouse.Store.Heartbeat.
func (db *DB) Heartbeat(ctx context.Context, orgID uuid.UUID, s gatehouse.GameServer, caps gatehouse.ServerCaps) (err error) {
	defer sqlstore.Label(&err, "Store.Heartbeat", orgID)
	players := s.Players
	if players == nil {
		players = []string{}
	}
	full, err := json.Marshal(players)
	if err != nil {
		return err
	}
	digest := sha256.Sum256(append([]byte(s.UniverseID+"\n"), full...))
	return db.withHotTx(ctx, func(tx querier) error {
		org, err := db.orgSeq(ctx, tx, orgID)
		if err != nil {
			return err
		}
		var (
			old      []byte
			oldCount int
		)
		err = tx.QueryRowContext(ctx, heartbeatDigest, org, s.JobID).Scan(&old, &oldCount)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		held, same := err == nil, bytes.Equal(old, digest[:]) && oldCount == len(players)
		if held && same {
			// The list and universe it sent before, stored whole (a list
			// cut at the players' cap is tried again).
			_, err := tx.ExecContext(ctx, heartbeatSeen, optString(s.PlaceID), millis(s.SeenAt), org, s.JobID)
			return err
		}
		stored := players
		if !held || !same && len(players) > oldCount {
			var servers, total int
			if err := tx.QueryRowContext(ctx, heartbeatTotals, org).Scan(&servers, &total); err != nil {
				return err
			}
			if !held && (servers >= caps.Servers || total+len(players) > caps.Players) {
				return gatehouse.ErrTooManyServers
			}
			if room := caps.Players - (total - oldCount); len(players) > room {
				stored = players[:max(room, 0)]
			}
		}
		list := full
		if len(stored) < len(players) {
			if list, err = json.Marshal(stored); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, heartbeatServer,
			org, s.JobID, s.UniverseID, optString(s.PlaceID), string(list), digest[:], millis(s.StartedAt), millis(s.SeenAt), len(stored)); err != nil {
			return err
		}
		return setPlayers(ctx, tx, org, s.JobID, s.UniverseID, stored)
	})
}

// heartbeatDigest reads the digest of the players a server last sent,
// and how many of them its row lists: ? org, job.
const heartbeatDigest = "SELECT players_digest, player_count FROM game_servers WHERE org = ? AND job_id = ?"

// heartbeatTotals counts an organization's servers and sums their
// players, over game_servers_players: ? org.
const heartbeatTotals = "SELECT count(*), coalesce(sum(player_count), 0) FROM game_servers WHERE org = ?"

// heartbeatSeen records a sync of a server whose list and universe did
// not change: ? place, seen, org, job.
const heartbeatSeen = "UPDATE game_servers SET place_id = ?, seen_at = ? WHERE org = ? AND job_id = ?"

// heartbeatServer creates or updates a server's row; started_at is kept
// from its first sync.
const heartbeatServer = `INSERT INTO game_servers
	(org, job_id, universe_id, place_id, players, players_digest, started_at, seen_at, player_count)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (org, job_id) DO UPDATE SET universe_id = excluded.universe_id, place_id = excluded.place_id,
		players = excluded.players, players_digest = excluded.players_digest, seen_at = excluded.seen_at,
		player_count = excluded.player_count`

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
func (db *DB) NamesUniverse(ctx context.Context, orgID uuid.UUID, universeID string) (_ bool, err error) {
	defer sqlstore.Label(&err, "Store.NamesUniverse", orgID)
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
func (db *DB) LiveServers(ctx context.Context, orgID uuid.UUID, universeID string, since time.Time, player *string) (_ []gatehouse.GameServer, err error) {
	defer sqlstore.Label(&err, "Store.LiveServers", orgID)
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

package postgres

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/clock"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// wakeChannel is the channel of the wakes of commands: every instance on
// the database listens on it.
const wakeChannel = "gatehouse_commands"

// Timings of the listening connection (variables for the tests).
var (
	// watchPing: the wakes' listener makes a round trip this often, and
	// gives up on the connection when no answer comes within
	// watchPingTimeout (listenOn).
	watchPing        = 30 * time.Second
	watchPingTimeout = connectTimeout
	// watchRetryFirst and watchRetryMax bound the wait between attempts
	// to connect again; it doubles from the first to the max.
	watchRetryFirst = 100 * time.Millisecond
	watchRetryMax   = 5 * time.Second
)

// notifyWake leaves w in tx: PostgreSQL delivers it to every listener
// when tx commits, and never if it rolls back. The payload is "orgID
// universeID jobID" (a universe id has no space; the job id comes last
// and may be empty).
func notifyWake(ctx context.Context, tx pgx.Tx, w gatehouse.Wake) error {
	_, err := tx.Exec(ctx, "SELECT pg_notify($1, $2)", wakeChannel, w.OrgID.String()+" "+w.UniverseID+" "+w.JobID)
	return err
}

// parseWake reads a payload of notifyWake.
func parseWake(payload string) (gatehouse.Wake, bool) {
	org, rest, ok := strings.Cut(payload, " ")
	if !ok {
		return gatehouse.Wake{}, false
	}
	universe, job, _ := strings.Cut(rest, " ")
	id, err := uuid.Parse(org)
	return gatehouse.Wake{OrgID: id, UniverseID: universe, JobID: job}, err == nil && id != uuid.Nil
}

// WatchCommands listens for the wakes of every instance on its own
// connection, made from the pool's configuration but not taken from the
// pool: a listener holds its connection for ever, and LISTEN is lost
// when a pooled connection is reset. When the connection fails it
// connects again, waiting longer after each failure, and after every
// (re)connection calls wake(gatehouse.Wake{}) since a notification may have
// been missed while it was down. SQLite polls a command_wakes table
// instead (sqlite/watch.go), having no notifications between processes;
// here a wake arrives at its commit, and an idle instance reads nothing.
func (db *DB) WatchCommands(ctx context.Context, wake func(gatehouse.Wake)) (err error) {
	defer sqlstore.Label(&err, "Store.WatchCommands")
	return db.keepListening(ctx, func() bool { return db.listen(ctx, wake) })
}

// keepListening runs listen again each time it returns, until ctx ends:
// listen returns when its connection failed, whatever the cause, and
// reports whether it had listened; the wait before the next attempt
// doubles after each failure and starts afresh after a success.
func (db *DB) keepListening(ctx context.Context, listen func() bool) error {
	retry := watchRetryFirst
	for {
		if listen() {
			retry = watchRetryFirst
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !clock.Sleep(ctx, retry) {
			return ctx.Err()
		}
		retry = min(2*retry, watchRetryMax)
	}
}

// listen connects, listens and relays wakes until the connection fails
// or ctx ends, and reports whether it got as far as listening.
func (db *DB) listen(ctx context.Context, wake func(gatehouse.Wake)) (listened bool) {
	return db.listenOn(ctx, wakeChannel, watchPing, nil, func() { wake(gatehouse.Wake{}) }, func(payload string) {
		if w, ok := parseWake(payload); ok {
			wake(w)
		}
	})
}

// listenOn connects, listens on channel and hands each notification's
// payload to heard until the connection fails or ctx ends, and reports
// whether it got as far as listening. It calls listening once it
// listens: what was sent before may have been missed. It makes a round
// trip on the connection at least every ping, and gives up on a
// connection that does not answer, so that one a network device dropped
// without a word is noticed and replaced; caughtUp, when not nil, is
// given the time each round trip began, before which every notification
// has been heard.
func (db *DB) listenOn(ctx context.Context, channel string, ping time.Duration, caughtUp func(time.Time), listening func(), heard func(payload string)) (listened bool) {
	cfg := db.pool.Config().ConnConfig.Copy()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return false
	}
	defer func() {
		closing, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		conn.Close(closing)
	}()
	began := time.Now()
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
		return false
	}
	listening()
	for {
		// What arrived with the last answer is handed on first: only then
		// is every change before it heard.
		if !relay(ctx, conn, time.Time{}, heard) {
			return true
		}
		if caughtUp != nil {
			caughtUp(began)
		}
		if !relay(ctx, conn, began.Add(ping), heard) {
			return true
		}
		began = time.Now()
		pinging, cancel := context.WithTimeout(ctx, watchPingTimeout)
		err := conn.Ping(pinging)
		cancel()
		if err != nil {
			return true
		}
	}
}

// relay hands the notifications that arrive on conn to heard until
// deadline (those already received, at least), and reports false when the
// connection failed or ctx ended first.
func relay(ctx context.Context, conn *pgx.Conn, deadline time.Time, heard func(payload string)) bool {
	for {
		waiting, cancel := context.WithDeadline(ctx, deadline)
		n, err := conn.WaitForNotification(waiting)
		cancel()
		switch {
		case err == nil:
			heard(n.Payload)
		case ctx.Err() != nil:
			return false
		case errors.Is(err, context.DeadlineExceeded) && !conn.IsClosed():
			return true
		default:
			return false
		}
	}
}

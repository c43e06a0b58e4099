package shards_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/shards"
	"github.com/gatehouse/gatehouse/internal/testenv"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// TestMoveWhileWriting: an organization is moved from a shard to --db,
// from --db to the other shard and back to the first while writers ingest
// into it and a reader follows its feed from one cursor throughout: every
// event acknowledged is read exactly once, in increasing positions, and
// the records that are not events (a key, a webhook and its positions, a
// location) go with it. Two of the writers write through a second
// instance's router, which hears of each move only from the directory.
// --db's transaction ids run far ahead of the shards' (every other test
// uses it), so the second move needs the target's offset: without it the
// reader would stop at the events written before.
func TestMoveWhileWriting(t *testing.T) {
	r, mainDSN, others := openRouter(t)
	r2, _ := openRouterOn(t, mainDSN, others)
	org, loc, ap := createGate(t, r, "Moved")
	other := createOrg(t, r, "Stays")
	key := gatehouse.APIKey{ID: uuid.New(), OrgID: org.ID, Name: "k", Prefix: "gk_mv", Hash: gatehouse.KeyHash{42},
		Scopes: []gatehouse.Scope{gatehouse.ScopeEventsRead}, CreatedAt: time.Now()}
	if err := r.CreateAPIKey(ctx, gatehouse.SystemEntry(gatehouse.AuditAPIKeyCreated), key); err != nil {
		t.Fatal(err)
	}
	hook, err := r.CreateWebhook(ctx, gatehouse.SystemEntry(gatehouse.AuditWebhookCreated),
		gatehouse.Webhook{ID: gatehouse.NewID(), OrgID: org.ID, URL: "https://example.test/hook",
			Types: []gatehouse.WebhookType{gatehouse.WebhookEventCreated}, CreatedAt: gatehouse.Time(time.Now())}, "", []byte("sealed"))
	if err != nil {
		t.Fatal(err)
	}

	var (
		mu      sync.Mutex
		written = map[uuid.UUID]bool{}
		stop    atomic.Bool
		writers sync.WaitGroup
	)
	granted := gatehouse.Granted
	for w := range 4 {
		via := []*shards.Router{r, r2}[w%2]
		writers.Go(func() {
			for !stop.Load() {
				events := make([]gatehouse.NewEvent, 1+rand.IntN(20))
				for i := range events {
					events[i] = gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessGranted, Allowed: &granted,
						AccessPointID: ap.ID, OccurredAt: time.Now().Add(-time.Duration(rand.IntN(3600)) * time.Second)}
				}
				_, err := via.IngestEvents(ctx, org.ID, events)
				if errors.Is(err, gatehouse.ErrUnavailable) {
					continue // held past its wait, or fenced: the client tries again
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				for _, ev := range events {
					written[ev.ID] = true
				}
				mu.Unlock()
			}
		})
	}
	seen := map[uuid.UUID]int{}
	var at gatehouse.FeedPosition
	read := func() int {
		t.Helper()
		page, err := r.ReadFeed(ctx, org.ID, gatehouse.EventFilter{Limit: 200}, at)
		if errors.Is(err, gatehouse.ErrUnavailable) {
			return 0
		}
		if err != nil {
			t.Fatal(err)
		}
		for i, ev := range page.Events {
			if !at.Less(page.Positions[i]) {
				t.Fatalf("position %+v after %+v", page.Positions[i], at)
			}
			at = page.Positions[i]
			seen[ev.ID]++
		}
		return len(page.Events)
	}
	reading := func(d time.Duration) {
		for end := time.Now().Add(d); time.Now().Before(end); {
			if read() == 0 {
				time.Sleep(5 * time.Millisecond)
			}
		}
	}

	// The organization that stays has a webhook on the second shard, whose
	// key the moved one's, copied there, must not take.
	newHook := func(o uuid.UUID) error {
		_, err := r.CreateWebhook(ctx, gatehouse.SystemEntry(gatehouse.AuditWebhookCreated),
			gatehouse.Webhook{ID: gatehouse.NewID(), OrgID: o, URL: "https://example.test/" + o.String(),
				Types: []gatehouse.WebhookType{gatehouse.WebhookEventCreated}, CreatedAt: gatehouse.Time(time.Now())}, "", []byte("sealed"))
		return err
	}
	if err := newHook(other.ID); err != nil {
		t.Fatal(err)
	}

	reading(300 * time.Millisecond)
	mainID, first, second := r.Shards()[0].ID, r.Shards()[1].ID, r.Shards()[2].ID
	// The third move starts from a shard that gave the organization an
	// offset: its bulk copy must still take the events it had.
	for _, to := range []uuid.UUID{mainID, second, first} {
		moved := make(chan error, 1)
		go func() {
			rep, err := r.Move(ctx, org.ID, to, t.Logf)
			t.Logf("%+v", rep)
			if err == nil && rep.BulkEvents == 0 {
				err = fmt.Errorf("the move to %s copied no event while the organization wrote on", to)
			}
			moved <- err
		}()
		for done := false; !done; {
			select {
			case err := <-moved:
				if err != nil {
					t.Fatal(err)
				}
				done = true
			default:
				reading(10 * time.Millisecond)
			}
		}
		reading(300 * time.Millisecond)
	}
	stop.Store(true)
	writers.Wait()
	for deadline := time.Now().Add(20 * time.Second); len(seen) < len(written) && time.Now().Before(deadline); {
		reading(50 * time.Millisecond)
	}
	if len(written) < 100 {
		t.Errorf("only %d events written during the moves", len(written))
	}
	for id := range written {
		if seen[id] != 1 {
			t.Errorf("event %s read %d times", id, seen[id])
		}
	}
	for id, n := range seen {
		if !written[id] {
			t.Errorf("event %s read %d times, never acknowledged", id, n)
		}
	}
	if n, err := r.CountFeed(ctx, org.ID, gatehouse.EventFilter{}, gatehouse.FeedPosition{}); err != nil || n != int64(len(written)) {
		t.Errorf("CountFeed: %d, %v; want %d", n, err, len(written))
	}

	// Where everything is now: the first shard, and nothing left behind.
	for i, dsn := range []string{mainDSN, others[0], others[1]} {
		db := openDB(t, dsn)
		_, err := db.FindOrganization(ctx, org.ID)
		if here := i == 1; here != (err == nil) {
			t.Errorf("primary %d: the organization: %v, want here=%v", i, err, here)
		}
	}
	if k, err := r.FindAPIKeyByHash(ctx, key.Hash); err != nil || k.ID != key.ID {
		t.Errorf("the key after the moves: %+v, %v", k, err)
	}
	hooks, err := r.ListWebhooks(ctx, org.ID)
	if err != nil || len(hooks) != 1 || hooks[0].ID != hook.ID {
		t.Errorf("webhooks after the moves: %+v, %v", hooks, err)
	}
	if got, err := r.FindAccessPoint(ctx, org.ID, ap.ID); err != nil || got.LocationID != loc.ID {
		t.Errorf("the access point after the moves: %+v, %v", got, err)
	}
	if _, err := r.FindOrganization(ctx, other.ID); err != nil {
		t.Errorf("the organization that stayed: %v", err)
	}
	for _, o := range []uuid.UUID{org.ID, other.ID} { // the keys the moves shifted, and the sequences past them
		if err := newHook(o); err != nil {
			t.Errorf("a webhook after the moves: %v", err)
		}
	}
	if _, err := r.Move(ctx, org.ID, first, t.Logf); !errors.Is(err, gatehouse.ErrInvalid) {
		t.Errorf("a move to where it lives: %v", err)
	}
	if _, err := r.Move(ctx, org.ID, uuid.New(), t.Logf); !errors.Is(err, gatehouse.ErrUnavailable) {
		t.Errorf("a move to an unknown shard: %v", err)
	}
}

// TestMoveGivesUp: a move that cannot fence the source (a transaction
// there outlasts its wait) gives up with nothing moved: the directory
// still places the organization on the source, unmarked, the target holds
// none of it, and it is served and written as before; once the
// transaction ends, the move succeeds (and unmarks the target's months it
// copied into, which CompactPartitions had rebuilt).
func TestMoveGivesUp(t *testing.T) {
	r, mainDSN, others := openRouter(t)
	shards.SetFenceWaitForTest(t, 500*time.Millisecond)
	org, loc, _ := createGate(t, r, "Stuck")
	source, target := r.Shards()[1], r.Shards()[2]
	long, err := pgx.Connect(ctx, others[0])
	if err != nil {
		t.Fatal(err)
	}
	defer long.Close(ctx)
	tx, err := long.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Move(ctx, org.ID, target.ID, t.Logf); err == nil || !strings.Contains(err.Error(), "ran longer") {
		t.Fatalf("a move the source could not be fenced for: %v", err)
	}
	if e, err := openDB(t, mainDSN).ShardOf(ctx, org.ID); err != nil || e.Moving || e.Shard != source.ID {
		t.Errorf("the directory after the move gave up: %+v, %v", e, err)
	}
	if _, err := openDB(t, others[1]).FindOrganization(ctx, org.ID); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("the target after the move gave up: %v", err)
	}
	if _, err := r.RenameLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationRenamed), org.ID, loc.ID, "Lobby"); err != nil {
		t.Errorf("a write after the move gave up: %v", err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	// The target's month was rebuilt packed before: the move, which
	// copies into it, unmarks it for the next rebuild.
	there, err := pgx.Connect(ctx, others[1])
	if err != nil {
		t.Fatal(err)
	}
	defer there.Close(ctx)
	month := pgx.Identifier{time.Now().UTC().Format("events_2006_01")}.Sanitize()
	if _, err := there.Exec(ctx, "COMMENT ON TABLE "+month+" IS 'rebuilt'"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Move(ctx, org.ID, target.ID, t.Logf); err != nil {
		t.Fatal(err)
	}
	if got, err := r.FindLocation(ctx, org.ID, loc.ID); err != nil || got.Name != "Lobby" {
		t.Errorf("the location after the move: %+v, %v", got, err)
	}
	var mark *string
	if err := there.QueryRow(ctx, "SELECT obj_description($1::regclass, 'pg_class')", month).Scan(&mark); err != nil || mark != nil {
		t.Errorf("the month the move copied into is still marked rebuilt: %v, %v", mark, err)
	}
}

// TestAcquireCheckOnFullPool: the acquire check of --db reads the
// directory on the connection it checks: with a pool of two connections
// and no cached entry trusted, eight calls at once of an organization that
// lives on --db all finish (taking a second connection from the pool
// waited for ever).
func TestAcquireCheckOnFullPool(t *testing.T) {
	mainDSN, others := testenv.PostgresDSN(t), testenv.ShardDSNs(t)
	r, _ := openRouterOn(t, mainDSN+"&pool_max_conns=2", others)
	org := createOrg(t, r, "Home")
	if _, err := r.Move(ctx, org.ID, r.Shards()[0].ID, t.Logf); err != nil {
		t.Fatal(err)
	}
	shards.SetDirectoryTrustForTest(t, 0)
	timed, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var calls sync.WaitGroup
	for range 8 {
		calls.Go(func() {
			if _, err := r.FindOrganization(timed, org.ID); err != nil {
				t.Error(err)
			}
		})
	}
	calls.Wait()
}

package postgres_test

import (
	"context"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/postgres"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/gatehouse/gatehouse/internal/service/servicetest"
	"github.com/gatehouse/gatehouse/internal/storetest"
	"github.com/gatehouse/gatehouse/internal/testenv"
)

type wake = gatehouse.Wake

// watch runs db.WatchCommands until the test ends.
func watch(t *testing.T, db *postgres.DB) <-chan wake {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	wakes := make(chan wake, 100)
	done := make(chan struct{})
	go func() {
		defer close(done)
		db.WatchCommands(ctx, func(w wake) { wakes <- w })
	}()
	t.Cleanup(func() { cancel(); <-done })
	return wakes
}

// waitFor waits up to within for want among the wakes, and stops the
// test when none comes.
func waitFor(t *testing.T, wakes <-chan wake, want wake, within time.Duration, what string) {
	t.Helper()
	if !storetest.WaitWake(t, wakes, want, within, what) {
		t.FailNow()
	}
}

// TestWakeReachesAnotherInstance: a command stored by one instance wakes
// the watcher of another on the same database within a second.
func TestWakeReachesAnotherInstance(t *testing.T) {
	d := newDoor(t)
	other := open(t, d.dsn)
	wakes := watch(t, other)
	waitFor(t, wakes, wake{}, time.Second, "listening")
	d.issue(t, time.Now())
	waitFor(t, wakes, wake{OrgID: d.org.ID, UniverseID: "42"}, time.Second, "a command of another instance")
}

// TestWatcherReconnects cuts the watcher's connection: it connects again
// by itself and, since wakes may have been missed meanwhile, wakes
// everything (uuid.Nil), then relays wakes again.
func TestWatcherReconnects(t *testing.T) {
	d := newDoor(t)
	u, err := url.Parse(d.dsn)
	must(t, err)
	proxy := testenv.NewProxy(t, u.Host)
	u.Host = proxy.Addr()
	other := open(t, u.String())
	wakes := watch(t, other)
	waitFor(t, wakes, wake{}, time.Second, "listening")

	proxy.Cut()
	d.issue(t, time.Now()) // lost: the watcher is not connected
	time.Sleep(300 * time.Millisecond)
	proxy.Restore(t)
	waitFor(t, wakes, wake{}, 8*time.Second, "after the reconnection")
	d.issue(t, time.Now())
	waitFor(t, wakes, wake{OrgID: d.org.ID, UniverseID: "42"}, time.Second, "a command after the reconnection")
}

// TestWatcherReplacesASilentConnection: when the network drops the
// listener's traffic without closing it (a NAT or firewall forgot it),
// the idle watcher's ping goes unanswered: it connects again and wakes
// everything.
func TestWatcherReplacesASilentConnection(t *testing.T) {
	t.Cleanup(postgres.SetWatchPingForTest(300 * time.Millisecond))
	d := newDoor(t)
	u, err := url.Parse(d.dsn)
	must(t, err)
	hole := newBlackhole(t, u.Host)
	u.Host = hole.addr
	other := open(t, u.String())
	wakes := watch(t, other)
	waitFor(t, wakes, wake{}, time.Second, "listening")

	hole.drop()
	waitFor(t, wakes, wake{}, 3*time.Second, "after the silent drop")
	d.issue(t, time.Now())
	waitFor(t, wakes, wake{OrgID: d.org.ID, UniverseID: "42"}, time.Second, "a command on the new connection")
}

// blackhole forwards connections to a server until drop, which makes
// every connection open at the time swallow its traffic silently, in both
// directions, without closing; later connections forward again.
type blackhole struct {
	addr    string
	mu      sync.Mutex
	dropped []*atomic.Bool
}

func newBlackhole(t *testing.T, target string) *blackhole {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	b := &blackhole{addr: ln.Addr().String()}
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		b.mu.Lock()
		defer b.mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			r, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			flag := new(atomic.Bool)
			b.mu.Lock()
			conns = append(conns, c, r)
			b.dropped = append(b.dropped, flag)
			b.mu.Unlock()
			go forward(r, c, flag)
			go forward(c, r, flag)
		}
	}()
	return b
}

func (b *blackhole) drop() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, f := range b.dropped {
		f.Store(true)
	}
}

func forward(dst, src net.Conn, dropped *atomic.Bool) {
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !dropped.Load() {
			if _, err := dst.Write(buf[:n]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// TestSyncWokenByAnotherInstance: a sync waiting on one instance answers
// within a second a command issued on another (the API behind a load
// balancer), through the database's wakes.
func TestSyncWokenByAnotherInstance(t *testing.T) {
	d := newDoor(t)
	ctx := context.Background()
	serve := service.New(service.Config{Store: d.db})
	issuer := service.New(service.Config{Store: open(t, d.dsn)})
	run, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { serve.RunCommands(run, "serve", func(err error) { t.Error(err) }); close(done) }()
	t.Cleanup(func() { stop(); <-done })

	servicetest.SyncWoken(t, ctx, serve, d.org.ID, 500*time.Millisecond, func() gatehouse.Command {
		admin := gatehouse.WithActor(ctx, gatehouse.Actor{Type: gatehouse.ActorUser, ID: d.user.ID, Label: d.user.Email,
			OrgID: d.org.ID, Role: d.user.Role})
		c, _, err := issuer.IssueCommand(admin, d.org.ID, gatehouse.CommandRequest{AccessPointID: d.ap.ID, Scope: gatehouse.ScopeUniverse}, "")
		must(t, err)
		return c
	}, "on another instance")
}

package service_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

// syncBurst syncs n servers with fresh job ids (prefix and a number from
// from), each once and without waiting, from 8 goroutines, as a key that
// invents job ids would. Every 5,000 syncs the clock moves past
// [gatehouse.ServerForgetAfter] and the sweep forgets the servers, as it
// does those of a studio whose servers come and go.
func syncBurst(t testing.TB, f *unlockFixture, prefix string, from, n int) {
	t.Helper()
	zero := 0
	const chunk = 5000
	for start := from; start < from+n; start += chunk {
		end := min(start+chunk, from+n)
		var (
			wg   sync.WaitGroup
			next = make(chan int)
			errs = make(chan error, 8)
		)
		for range 8 {
			wg.Go(func() {
				for i := range next {
					_, err := f.svc.Sync(f.key, f.org.ID, gatehouse.SyncRequest{ServerJobID: fmt.Sprintf("%s-%d", prefix, i),
						UniverseID: "42", WaitSeconds: &zero})
					if err != nil {
						errs <- err
						return
					}
				}
			})
		}
	feed:
		for i := start; i < end; i++ {
			select {
			case next <- i:
			case err := <-errs:
				close(next)
				wg.Wait()
				t.Fatal(err)
				break feed
			}
		}
		close(next)
		wg.Wait()
		select {
		case err := <-errs:
			t.Fatal(err)
		default:
		}
		f.now = f.now.Add(gatehouse.ServerForgetAfter + time.Minute)
		must(t, f.svc.SweepCommands(context.Background(), "test"))
	}
}

// rss is the process's resident set in bytes, 0 where /proc does not
// tell it.
func rss() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// liveHeap is the heap in use after a full collection.
func liveHeap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestSyncMemoryFollowsLiveServers: a burst of 10,000 syncs with job ids
// never seen again leaves the heap where it was. What the service keeps
// for a sync goes with it:
//   - the wake channels of its server and universe;
//   - the version of its universe's policy set, past a second.
//
// The heap is measured after a first burst, so that pools, prepared
// statements and caches have reached their size. The allowance is a tenth
// of what the old leak kept (about 200 bytes per job id, for good).
func TestSyncMemoryFollowsLiveServers(t *testing.T) {
	if testing.Short() {
		t.Skip("12,000 syncs")
	}
	f := newUnlock(t)
	syncBurst(t, f, "warm", 0, 2000)
	before, rssBefore := liveHeap(), rss()
	const n = 10_000
	start := time.Now()
	syncBurst(t, f, "fresh", 0, n)
	took := time.Since(start)
	after, rssAfter := liveHeap(), rss()
	grew := int64(after) - int64(before)
	t.Logf("heap %.2f MiB before, %.2f MiB after %d syncs with fresh job ids (%+d bytes per sync); RSS %.1f MiB, then %.1f MiB; %s",
		float64(before)/(1<<20), float64(after)/(1<<20), n, grew/n,
		float64(rssBefore)/(1<<20), float64(rssAfter)/(1<<20), took.Round(time.Millisecond))
	if grew > n*20 {
		t.Errorf("the heap grew %d bytes over %d syncs with fresh job ids (%d per sync): they left state behind", grew, n, grew/n)
	}
}

// TestSyncOfAnUnknownUniverse: a sync for a universe none of the
// organization's locations names is [gatehouse.ErrUnknownUniverse] (an
// [gatehouse.ErrNotFound]), and records nothing: no server is live there,
// so no unlock can target it.
func TestSyncOfAnUnknownUniverse(t *testing.T) {
	f := newUnlock(t)
	zero := 0
	_, err := f.svc.Sync(f.key, f.org.ID, gatehouse.SyncRequest{ServerJobID: "job-1", UniverseID: "43", WaitSeconds: &zero})
	if !errors.Is(err, gatehouse.ErrUnknownUniverse) || !errors.Is(err, gatehouse.ErrNotFound) {
		t.Fatalf("sync of universe 43 = %v, want ErrUnknownUniverse", err)
	}
	// Universe 42 is the other organization's business only when its
	// own location names it.
	_, err = f.svc.Sync(f.key, f.other.ID, gatehouse.SyncRequest{ServerJobID: "job-1", UniverseID: "42", WaitSeconds: &zero})
	if !errors.Is(err, gatehouse.ErrUnknownUniverse) {
		t.Fatalf("another organization's sync of universe 42 = %v, want ErrUnknownUniverse", err)
	}
	f.sync(t, "job-1") // universe 42, which HQ names
	c, _, err := f.svc.IssueCommand(f.key, f.org.ID, gatehouse.CommandRequest{AccessPointID: f.door.ID,
		Scope: gatehouse.ScopeServer, ServerJobID: new("job-1"), DurationSeconds: 10}, "")
	must(t, err)
	if c.Status != gatehouse.CommandPending {
		t.Errorf("a SERVER unlock of the server that synced universe 42 is %s", c.Status)
	}
	// The location leaves universe 42: its servers are refused at once.
	_, err = f.svc.SetLocationUniverse(context.Background(), f.org.ID, f.door.LocationID, "")
	must(t, err)
	_, err = f.svc.Sync(f.key, f.org.ID, gatehouse.SyncRequest{ServerJobID: "job-1", UniverseID: "42", WaitSeconds: &zero})
	if !errors.Is(err, gatehouse.ErrUnknownUniverse) {
		t.Fatalf("sync of a universe no location names any more = %v, want ErrUnknownUniverse", err)
	}
}

package service_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/gatehouse/gatehouse"
)

// BenchmarkUniverseUnlock is one UNIVERSE unlock of a universe of 1,000
// live servers, on SQLite: issued, taken by every server's sync, and
// acknowledged by every server's next sync, 64 servers at a time. It is
// the work a command costs the database, without HTTP.
func BenchmarkUniverseUnlock(b *testing.B) {
	const servers, parallel = 1000, 64
	f := unlockOn(b, newService(b, nil))
	cursors := make([]string, servers)
	zero := 0
	syncAll := func(acks func(i int) []gatehouse.Ack) {
		var wg sync.WaitGroup
		sem := make(chan struct{}, parallel)
		for i := range servers {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				r := gatehouse.SyncRequest{ServerJobID: fmt.Sprintf("job-%d", i), UniverseID: "42",
					Players: []string{fmt.Sprint(1000 + i)}, Acks: acks(i), Cursor: &cursors[i], WaitSeconds: &zero}
				res, err := f.svc.Sync(f.key, f.org.ID, r)
				if err != nil {
					b.Error(err)
					return
				}
				cursors[i] = res.Cursor
			}()
		}
		wg.Wait()
	}
	syncAll(func(int) []gatehouse.Ack { return nil }) // every server is live
	b.ResetTimer()
	for range b.N {
		c, _, err := f.svc.IssueCommand(f.key, f.org.ID, f.universe(), "")
		if err != nil {
			b.Fatal(err)
		}
		syncAll(func(int) []gatehouse.Ack { return nil })
		syncAll(func(int) []gatehouse.Ack { return []gatehouse.Ack{{CommandID: c.ID, Result: gatehouse.AckExecuted}} })
		if got, _ := f.svc.FindCommand(f.key, f.org.ID, c.ID); got.Status != gatehouse.CommandExecuted || got.Targets.Executed != servers {
			b.Fatalf("after every ack: %s, %+v", got.Status, got.Targets)
		}
	}
}

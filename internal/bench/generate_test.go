package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

var testNow = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// generate writes the first organization's log for cfg, with made-up
// access points: the generator needs their ids, not a store.
func generate(t *testing.T, cfg SeedConfig, n int) []string {
	t.Helper()
	points := make([]uuid.UUID, pointsPerOrg)
	for i := range points {
		points[i] = uuid.NewSHA1(uuid.NameSpaceOID, fmt.Append(nil, i))
	}
	var buf bytes.Buffer
	if err := newGenerator(cfg, 0, points, n).write(&buf); err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(&buf)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) != n {
		t.Fatalf("wrote %d lines, want %d", len(lines), n)
	}
	return lines
}

// decode reads every line as the importer does, failing on any it would
// reject.
func decode(t *testing.T, lines []string) []gatehouse.NewEvent {
	t.Helper()
	var events []gatehouse.NewEvent
	for i, line := range lines {
		ev, err := gatehouse.DecodeIngestEvent([]byte(line), testNow)
		if err != nil {
			t.Fatalf("line %d %s: %v", i+1, line, err)
		}
		events = append(events, ev)
	}
	return events
}

func TestGenerateV4IDs(t *testing.T) {
	cfg := SeedConfig{Seed: 3, Now: testNow, IDs: IDsV4}
	lines := generate(t, cfg, 2000)
	ids := map[uuid.UUID]bool{}
	for _, ev := range decode(t, lines) {
		if ev.ID.Version() != 4 || ev.ID.Variant() != uuid.RFC4122 {
			t.Fatalf("id %s is version %d, variant %v", ev.ID, ev.ID.Version(), ev.ID.Variant())
		}
		ids[ev.ID] = true
	}
	if len(ids) != len(lines) {
		t.Errorf("%d distinct ids in %d events", len(ids), len(lines))
	}
	if again := generate(t, cfg, 2000); !slices.Equal(lines, again) {
		t.Error("the same seed wrote a different log")
	}
	cfg.Seed = 4
	if other := generate(t, cfg, 2000); other[0] == lines[0] {
		t.Error("another seed wrote the same first event")
	}
}

func TestGenerateV7IDsFollowTime(t *testing.T) {
	events := decode(t, generate(t, SeedConfig{Seed: 3, Now: testNow}, 2000))
	for i, ev := range events {
		sec, nsec := ev.ID.Time().UnixTime()
		if ev.ID.Version() != 7 || time.Unix(sec, nsec).UnixMilli() != ev.OccurredAt.UnixMilli() {
			t.Fatalf("event %d: id %s does not carry its time %s", i, ev.ID, ev.OccurredAt)
		}
		if i > 0 && ev.OccurredAt.Before(events[i-1].OccurredAt) {
			t.Fatalf("event %d is earlier than the one before it", i)
		}
	}
}

// TestGenerateShuffled checks that the shuffled order is the time-ordered
// log's events, every one, in an order far from time order.
func TestGenerateShuffled(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 1000, 4097} {
		for _, ids := range []IDVersion{IDsV7, IDsV4} {
			t.Run(fmt.Sprint(ids, n), func(t *testing.T) {
				cfg := SeedConfig{Seed: 9, Now: testNow, IDs: ids, Jobs: 40}
				inTime := generate(t, cfg, n)
				cfg.Order = OrderShuffled
				shuffled := generate(t, cfg, n)
				events := decode(t, shuffled)
				if !slices.Equal(sorted(inTime), sorted(shuffled)) {
					t.Fatal("the shuffled log is not the time-ordered log's events")
				}
				if n < 1000 {
					return
				}
				descents := 0
				for i := 1; i < len(events); i++ {
					if events[i].OccurredAt.Before(events[i-1].OccurredAt) {
						descents++
					}
				}
				// A random order goes back in time about every other event.
				if descents < n/3 {
					t.Errorf("%d of %d events earlier than the one before: hardly shuffled", descents, n)
				}
				if again := generate(t, cfg, n); !slices.Equal(shuffled, again) {
					t.Error("the same seed shuffled differently")
				}
			})
		}
	}
}

// TestGenerateJobs checks the job count, and that a job's events sit
// within a server's life (serversAtOnce turns of span/jobs), as a real
// server's do, not over the whole span.
func TestGenerateJobs(t *testing.T) {
	const n = 70
	type life struct{ first, last time.Time }
	jobs := map[string]*life{}
	for _, ev := range decode(t, generate(t, SeedConfig{Seed: 1, Now: testNow, Jobs: n}, 30_000)) {
		if ev.ServerJobID == nil {
			continue
		}
		l := jobs[*ev.ServerJobID]
		if l == nil {
			l = &life{ev.OccurredAt, ev.OccurredAt}
			jobs[*ev.ServerJobID] = l
		}
		l.first, l.last = minTime(l.first, ev.OccurredAt), maxTime(l.last, ev.OccurredAt)
	}
	if len(jobs) != n {
		t.Errorf("%d server job ids, want %d", len(jobs), n)
	}
	longest := (serversAtOnce + 1) * span / n
	for job, l := range jobs {
		if l.last.Sub(l.first) > longest {
			t.Errorf("job %s has events over %v, more than %v", job, l.last.Sub(l.first), longest)
		}
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// TestPermutation checks the shuffle is a bijection of [0, n) for sizes
// around the powers of four where the Feistel domain changes.
func TestPermutation(t *testing.T) {
	for _, n := range []uint64{1, 2, 3, 4, 5, 15, 16, 17, 1023, 1024, 1025, 5000} {
		p := newPermutation(n, 42)
		seen := make([]bool, n)
		for i := range n {
			j := p.at(i)
			if j >= n || seen[j] {
				t.Fatalf("n=%d: index %d goes to %d, out of range or taken", n, i, j)
			}
			seen[j] = true
		}
	}
}

func TestFlagValues(t *testing.T) {
	var ids IDVersion
	var order Order
	if ids.String() != "v7" || order.String() != "time" {
		t.Errorf("defaults %q %q", ids, order)
	}
	if ids.Set("v4") != nil || ids != IDsV4 || order.Set("shuffled") != nil || order != OrderShuffled {
		t.Errorf("set: %q %q", ids, order)
	}
	if err := ids.Set("v1"); err == nil || !strings.Contains(err.Error(), "v7 or v4") {
		t.Errorf("v1: %v", err)
	}
	if err := order.Set("random"); err == nil {
		t.Error("order random accepted")
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

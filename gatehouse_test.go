package gatehouse

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"
)

// AppendTime must write exactly what the layout TimeFormat writes.
func TestAppendTimeMatchesLayout(t *testing.T) {
	times := []time.Time{
		{}, time.Unix(0, 0), time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 11, 20, 12, 34, 56, 789_000_000, time.FixedZone("x", -7*3600)),
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		times = append(times, time.Unix(r.Int64N(1<<36)-1<<35, r.Int64N(1e9)))
	}
	for _, tm := range times {
		want := tm.UTC().Format(TimeFormat)
		if got := FormatTime(tm); got != want {
			t.Fatalf("FormatTime(%v) = %s, want %s", tm, got, want)
		}
		b, err := json.Marshal(Time(tm))
		if err != nil || string(b) != `"`+want+`"` {
			t.Fatalf("json.Marshal(%v) = %s, %v; want %q", tm, b, err, want)
		}
	}
}

func BenchmarkAppendTime(b *testing.B) {
	buf := make([]byte, 0, 32)
	tm := time.Date(2026, 11, 20, 12, 34, 56, 789_000_000, time.UTC)
	for b.Loop() {
		buf = AppendTime(buf[:0], tm)
	}
}

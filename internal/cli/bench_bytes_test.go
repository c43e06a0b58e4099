package cli_test

import (
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/internal/cli"
	"github.com/gatehouse/gatehouse/internal/testenv"
)

// bytesReport is what bench bytes --json prints, in the parts the test reads.
type bytesReport struct {
	Backend     string
	Events      int64
	OrgEvents   *int64
	AllBytes    int64
	SampledRows int64
	RowBytes    float64
	Relations   []struct {
		Part, Kind, Name, Table, Definition string
		Bytes, Rows                         int64
		BytesPerEvent                       float64
	}
	Columns []struct {
		Name     string
		AvgBytes float64
		NullRate float64
	}
	Totals, TotalsPerEvent struct{ EventsTable, EventsIndexes, Events, Side, WithSide, Other int64 }
}

// TestBenchBytes measures a small seeded log: every index of events and
// the side tables are there with their bytes, the totals add up, and
// --org counts and samples one organization's events. It checks what is
// measured, not how many bytes an event takes.
func TestBenchBytes(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { benchBytes(t, newGH(t), "sqlite") })
	t.Run("postgres", func(t *testing.T) {
		g := newGH(t)
		g.db = testenv.PostgresDSN(t)
		benchBytes(t, g, "postgres")
	})
}

func benchBytes(t *testing.T, g *gh, backend string) {
	var seeded struct {
		Orgs []struct {
			ID     string
			Events int64
		}
	}
	g.json(&seeded, "bench", "seed", "--events", "4000", "--orgs", "2", "--seed", "3", "--jobs", "40")

	var rep bytesReport
	g.json(&rep, "bench", "bytes")
	if rep.Backend != backend || rep.Events != 4000 || rep.OrgEvents != nil || rep.SampledRows != 4000 || rep.RowBytes <= 0 {
		t.Fatalf("report: backend %s, %d events, org %v, %d sampled, row %.1f bytes", rep.Backend, rep.Events, rep.OrgEvents, rep.SampledRows, rep.RowBytes)
	}
	found := map[string]int64{}
	var table, indexes, side int64
	for _, r := range rep.Relations {
		found[r.Part+" "+r.Kind+" "+r.Name] = r.Bytes
		switch {
		case r.Part == "events" && r.Kind == "index":
			indexes += r.Bytes
			if !strings.HasPrefix(r.Definition, "(") {
				t.Errorf("index %s: definition %q", r.Name, r.Definition)
			}
		case r.Part == "events":
			table += r.Bytes
		default:
			side += r.Bytes
		}
		if r.Kind == "table" && r.Rows <= 0 && r.Name != "search_terms_text_config" {
			t.Errorf("table %s: %d rows", r.Name, r.Rows)
		}
		if want := float64(r.Bytes) / 4000; r.BytesPerEvent != want {
			t.Errorf("%s: %.2f bytes per event, want %.2f", r.Name, r.BytesPerEvent, want)
		}
	}
	want := []string{"events table events", "events index events_by_time",
		"events index events_by_access_point", "events index events_feed", "side table search_terms", "side table job_spans",
		"side table insight_door_days", "side table insight_player_months"}
	if backend == "postgres" { // partitioned: the unique key holds occurred_at, and the recent ids stand beside it
		want = append(want, "events index events_by_key", "side table recent_event_ids")
	} else {
		want = append(want, "events index events_by_id")
	}
	for _, name := range want {
		if found[name] <= 0 {
			t.Errorf("%s: %d bytes, want some (measured: %v)", name, found[name], found)
		}
	}
	if _, ok := found["events toast events (TOAST)"]; ok != (backend == "postgres") {
		t.Errorf("a TOAST row of events: %v on %s", ok, backend)
	}
	tot := rep.Totals
	if tot.EventsTable != table || tot.EventsIndexes != indexes || tot.Events != table+indexes || tot.Side != side ||
		tot.WithSide != tot.Events+side || tot.Other != rep.AllBytes-tot.WithSide || tot.Other < 0 {
		t.Errorf("totals %+v; summed: table %d, indexes %d, side %d, all %d", tot, table, indexes, side, rep.AllBytes)
	}
	if rep.TotalsPerEvent.Events != (tot.Events+2000)/4000 {
		t.Errorf("bytes per event with indexes %d, want %d", rep.TotalsPerEvent.Events, (tot.Events+2000)/4000)
	}
	cols := map[string]float64{}
	for _, c := range rep.Columns {
		cols[c.Name] = c.AvgBytes
	}
	// A job id is its text on SQLite, a four-byte key on PostgreSQL (0034).
	job := cols["server_job_id"] >= 30
	if backend == "postgres" {
		job = cols["server_job_id"] > 3 && cols["server_job_id"] <= 4
	}
	if cols["id"] < 16 || cols["occurred_at"] < 7 || !job || len(cols) < 15 {
		t.Errorf("columns: %v", cols)
	}

	// One organization: its events counted, and the columns averaged over
	// them alone (with a sample smaller than they are).
	org := seeded.Orgs[1]
	g.json(&rep, "bench", "bytes", "--org", org.ID, "--sample", "500")
	if rep.Events != 4000 || rep.OrgEvents == nil || *rep.OrgEvents != org.Events || rep.SampledRows == 0 || rep.SampledRows >= org.Events {
		t.Errorf("--org: %d events, the organization's %v (want %d), %d sampled", rep.Events, rep.OrgEvents, org.Events, rep.SampledRows)
	}

	out, stderr, err := g.run(nil, "bench", "bytes")
	if err != nil {
		t.Fatalf("bench bytes: %v\n%s", err, stderr)
	}
	for _, want := range []string{"4,000 events", "events_by_time", "events with their indexes", "insight_door_days", "columns of events over 4,000 sampled rows", "server_job_id"} {
		if !strings.Contains(out, want) {
			t.Errorf("bench bytes printed %q, want %q in it", out, want)
		}
	}
	for _, bad := range [][]string{{"--org", "0193a1b2-0000-7000-8000-000000000001"}, {"--sample", "0"}, {"--org", "x"}} {
		if _, _, err := g.run(nil, append([]string{"bench", "bytes"}, bad...)...); err == nil {
			t.Errorf("bench bytes %v: no error", bad)
		} else if bad[1] == "x" && cli.ExitStatus(err) != 2 {
			t.Errorf("bench bytes %v: %v, want a usage error", bad, err)
		}
	}
}

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
)

// bytesRelation is a measured relation with its bytes per event.
type bytesRelation struct {
	gatehouse.StorageRelation
	PerEvent float64 `json:"bytesPerEvent"`
}

// bytesOutput is what bench bytes prints with --json: the report, each
// relation and total with its bytes per event.
type bytesOutput struct {
	gatehouse.StorageReport
	Relations     []bytesRelation         `json:"relations"`
	Totals        gatehouse.StorageTotals `json:"totals"`
	TotalPerEvent gatehouse.StorageTotals `json:"totalsPerEvent"` // Totals divided by the events, rounded to a byte
}

// runBenchBytes measures what the stored events cost on disk: the events
// table, each of its indexes and the side tables, in bytes and bytes per
// event, and the stored size of each column of events.
func runBenchBytes(ctx context.Context, e *env) error {
	f := newFlags(e, "bench bytes")
	org := f.String("org", "", "count this organization's events and average the columns over them alone (the sizes stay the tables', which every organization shares)")
	sample := f.Int("sample", 100_000, "rows of events to average the columns over")
	return withExistingService(ctx, f, 0, func(svc *service.Service, _ []string) error {
		var id uuid.UUID
		if *org != "" {
			var err error
			if id, err = parseID("org", *org); err != nil {
				return err
			}
		}
		rep, err := svc.MeasureStorage(ctx, id, *sample)
		if err != nil {
			return err
		}
		out := bytesOutput{StorageReport: rep, Totals: rep.Totals()}
		for _, r := range rep.Relations {
			out.Relations = append(out.Relations, bytesRelation{StorageRelation: r, PerEvent: rep.PerEvent(r.Bytes)})
		}
		per := func(b int64) int64 { return int64(rep.PerEvent(b) + 0.5) }
		t := out.Totals
		out.TotalPerEvent = gatehouse.StorageTotals{EventsTable: per(t.EventsTable), EventsIndexes: per(t.EventsIndexes), Events: per(t.Events),
			Side: per(t.Side), WithSide: per(t.WithSide), Other: per(t.Other)}
		if *f.json {
			enc := json.NewEncoder(e.stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(out)
		}
		return writeBytes(e.stdout, rep)
	})
}

// writeBytes prints the report as two plain-text tables: the relations
// with their totals, and the columns.
func writeBytes(w io.Writer, rep gatehouse.StorageReport) error {
	backend := map[string]string{"postgres": "PostgreSQL", "sqlite": "SQLite"}[rep.Backend]
	fmt.Fprintf(w, "%s, %s events", backend, group(rep.Events))
	if rep.OrgEvents != nil {
		fmt.Fprintf(w, " (%s of them the organization's)", group(*rep.OrgEvents))
	}
	fmt.Fprintf(w, "\nsizes: %s\n\n", rep.Method)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "part\tkind\trelation\trows\tbytes\tbytes/event\tdefinition")
	for _, r := range rep.Relations {
		rows := ""
		if r.Rows >= 0 {
			rows = group(r.Rows)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.1f\t%s\n", r.Part, r.Kind, r.Name, rows, group(r.Bytes), rep.PerEvent(r.Bytes), r.Definition)
	}
	t := rep.Totals()
	for _, row := range []struct {
		name  string
		bytes int64
	}{
		{rowsLabel[rep.Backend], t.EventsTable},
		{"events: indexes", t.EventsIndexes},
		{"events with their indexes", t.Events},
		{"side tables with their indexes", t.Side},
		{"events, indexes and side tables", t.WithSide},
		{"every other table", t.Other},
		{"all", rep.AllBytes},
	} {
		fmt.Fprintf(tw, "total\t\t%s\t\t%s\t%.1f\t\n", row.name, group(row.bytes), rep.PerEvent(row.bytes))
	}
	if rep.FreeBytes > 0 {
		fmt.Fprintf(tw, "\t\tof which free pages\t\t%s\t%.1f\t\n", group(rep.FreeBytes), rep.PerEvent(rep.FreeBytes))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\ncolumns of events over %s sampled rows:\n\n", group(rep.SampledRows))
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "column\ttype\tavg bytes\tnull")
	var sum float64
	for _, c := range rep.Columns {
		sum += c.AvgBytes
		fmt.Fprintf(tw, "%s\t%s\t%.2f\t%.1f%%\n", c.Name, c.Type, c.AvgBytes, 100*c.NullRate)
	}
	fmt.Fprintf(tw, "(the columns)\t\t%.2f\t\n", sum)
	fmt.Fprintf(tw, "(a row)\t\t%.2f\t\n", rep.RowBytes)
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(w, "\n%s", n)
	}
	_, err := fmt.Fprintln(w)
	return err
}

// rowsLabel names the bytes of the events' rows by backend.
var rowsLabel = map[string]string{"postgres": "events: rows and TOAST", "sqlite": "events: rows"}

// group writes n with a comma between each group of three digits.
func group(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

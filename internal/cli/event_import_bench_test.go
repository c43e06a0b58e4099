package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/internal/cli"
)

// BenchmarkImport measures event import end to end (decode, validate,
// store) into SQLite, in events per second:
//
//	go test ./internal/cli -run '^$' -bench Import -benchtime 50000x
func BenchmarkImport(b *testing.B) {
	g := &gh{db: b.TempDir() + "/bench.db", env: map[string]string{}}
	run := func(stdin io.Reader, args ...string) string {
		var out bytes.Buffer
		if err := cli.Run(context.Background(), append(args, "--db", g.db), g.getenv, stdin, &out, io.Discard); err != nil {
			b.Fatal(err)
		}
		return strings.TrimSpace(out.String())
	}
	field := func(json, name string) string {
		i := strings.Index(json, `"`+name+`": "`) + len(name) + 5
		return json[i : i+36]
	}
	org := field(run(nil, "org", "create", "--name", "Bench", "--json"), "id")
	loc := field(run(nil, "location", "create", "--org", org, "--name", "HQ", "--json"), "id")
	ap := field(run(nil, "access-point", "create", "--location", loc, "--name", "Door", "--json"), "id")
	var buf bytes.Buffer
	for i := range b.N {
		fmt.Fprintf(&buf, `{"type":"ACCESS_DENIED","reason":"OUTSIDE_SCHEDULE","occurredAt":"`+eventDay+`T%02d:%02d:%02dZ","accessPointId":%q,"platformUserId":"%d","serverJobId":"job-%d"}`+"\n",
			i/3600%24, i/60%60, i%60, ap, i%5000, i%50)
	}
	b.ResetTimer()
	run(&buf, "event", "import", "--org", org, "-")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

package cli_test

import (
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/internal/cli"
	"github.com/gatehouse/gatehouse/internal/move"
	"github.com/gatehouse/gatehouse/internal/testenv"
)

// TestMoveToPostgres: gatehouse move-to-postgres moves the SQLite file
// of --db into the PostgreSQL database of --to, printing each table's
// progress on stderr and, on stdout, the rows of every table in the
// source and the target and what to do next; --json prints the report.
// A second move into the same database is refused (exit 1), and so is an
// organization the file does not hold.
func TestMoveToPostgres(t *testing.T) {
	dsn := testenv.PostgresDSN(t)
	g := newGH(t)
	var org struct{ ID string }
	g.json(&org, "org", "create", "--name", "Acme")
	if _, stderr, err := g.run(nil, "key", "create", "--org", org.ID, "--name", "k", "--scopes", "events:read"); err != nil {
		t.Fatalf("%v %s", err, stderr)
	}
	out, stderr, err := g.run(nil, "move-to-postgres", "--to", dsn+"&pool_max_conns=2") // as GATEHOUSE_DB may carry it
	if err != nil {
		t.Fatalf("move-to-postgres: %v\n%s", err, stderr)
	}
	for _, want := range []string{"moved 1 organization(s)", "Acme (" + org.ID + ")", "took the source's service secret", "Sessions do not move"} {
		if !strings.Contains(out, want) {
			t.Errorf("the move printed\n%s\nwithout %q", out, want)
		}
	}
	rows := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) >= 4 {
			rows[f[0]] = strings.Join(f[1:4], " ")
		}
	}
	for table, want := range map[string]string{"organizations": "copied 1 1", "api_keys": "copied 1 1", "audit_log": "copied 2 2", "sessions": "skipped 0 -"} {
		if rows[table] != want {
			t.Errorf("the row of %s reads %q, want %q", table, rows[table], want)
		}
	}
	if !strings.Contains(stderr, "organizations") || !strings.Contains(stderr, "1 of 1 rows") {
		t.Errorf("no progress on stderr: %q", stderr)
	}
	if _, stderr, err := g.run(nil, "move-to-postgres", "--to", dsn); cli.ExitStatus(err) != 1 || !strings.Contains(err.Error(), "holds 1 organizations") {
		t.Errorf("a second move: %v (exit %d) %s", err, cli.ExitStatus(err), stderr)
	}
	if _, _, err := g.run(nil, "move-to-postgres", "--to", dsn, "--org", "01a22383-2056-76d5-80f1-732d82053fa2"); err == nil || !strings.Contains(err.Error(), "is not in") {
		t.Errorf("an organization the file does not hold: %v", err)
	}
	var rep move.Report
	g.db = newGH(t).db
	g.json(&org, "org", "create", "--name", "Beta")
	g.json(&rep, "move-to-postgres", "--to", testenv.PostgresDSN(t), "--org", org.ID)
	if rep.Secret != move.SecretTaken || len(rep.Organizations) != 1 || rep.Organizations[0].Name != "Beta" || len(rep.Tables) == 0 {
		t.Errorf("--json printed %+v", rep)
	}
}

// TestMoveToPostgresUsage: the command needs --to, a postgres:// URL,
// moves a SQLite file only, and takes an organization's id: exit 2.
func TestMoveToPostgresUsage(t *testing.T) {
	g := newGH(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"move-to-postgres"}, "--to is required"},
		{[]string{"move-to-postgres", "--to", "other.db"}, "--to must be a postgres:// URL"},
		{[]string{"move-to-postgres", "--to", "postgres://localhost/x", "--org", "acme"}, "--org must be a UUID"},
	} {
		_, _, err := g.run(nil, c.args...)
		if cli.ExitStatus(err) != 2 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("gatehouse %s: %v (exit %d), want %q", strings.Join(c.args, " "), err, cli.ExitStatus(err), c.want)
		}
	}
	g.db = "postgres://localhost/x"
	if _, _, err := g.run(nil, "move-to-postgres", "--to", "postgres://localhost/y"); cli.ExitStatus(err) != 2 || !strings.Contains(err.Error(), "--db must be the SQLite file") {
		t.Errorf("a PostgreSQL source: %v", err)
	}
}

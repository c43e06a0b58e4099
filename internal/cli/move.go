package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/move"
	"github.com/google/uuid"
)

// runMoveToPostgres moves the SQLite database of --db, or one
// organization of it, into the PostgreSQL database of --to.
func runMoveToPostgres(ctx context.Context, e *env) error {
	f := newFlags(e, "move-to-postgres")
	to := f.String("to", "", "the PostgreSQL database to move into: a postgres:// URL (a password is better in PGPASSWORD or ~/.pgpass)")
	org := f.String("org", "", "move this organization alone, with its users; default: every organization")
	if _, err := f.parse(0); err != nil {
		return err
	}
	if err := required("to", *to); err != nil {
		return err
	}
	if !app.IsPostgres(*to) {
		return usagef("--to must be a postgres:// URL, got %q", databaseName(*to))
	}
	if app.IsPostgres(*f.db) {
		return usagef("--db must be the SQLite file to move, not a postgres:// URL")
	}
	var orgID uuid.UUID
	if *org != "" {
		id, err := parseID("org", *org)
		if err != nil {
			return err
		}
		if id == uuid.Nil {
			return usagef("--org must name an organization; leave it out to move every one")
		}
		orgID = id
	}
	what := "every organization"
	if orgID != uuid.Nil {
		what = "organization " + orgID.String()
	}
	fmt.Fprintf(e.stderr, "moving %s of %s into %s\n", what, databaseName(*f.db), databaseName(*to))
	rep, err := app.Move(ctx, move.Options{From: *f.db, To: *to, Org: orgID, Now: e.now, Progress: progressTo(e.stderr)})
	if rep == nil {
		return missingHint(err)
	}
	if *f.json {
		if perr := f.print(rep, ""); perr != nil {
			return perr
		}
		return err
	}
	printMove(e.stdout, rep, databaseName(*to))
	return err
}

// count is a number of rows, or "-" for a table that is not there.
func count(n *int64) string {
	if n == nil {
		return "-"
	}
	return fmt.Sprint(*n)
}

// progressTo prints a line for each batch of a table copied.
func progressTo(w io.Writer) func(move.Progress) {
	return func(p move.Progress) {
		rate := float64(p.Done) / max(p.Elapsed.Seconds(), 0.001)
		fmt.Fprintf(w, "  %-22s %10d of %d rows (%.0f rows/s)\n", p.Table, p.Done, p.Total, rate)
	}
}

// printMove prints the rows of every table in the source and the target,
// and what to do next.
func printMove(w io.Writer, rep *move.Report, target string) {
	var names []string
	for _, o := range rep.Organizations {
		names = append(names, fmt.Sprintf("%s (%s)", o.Name, o.ID))
	}
	fmt.Fprintf(w, "moved %d organization(s) into %s in %s: %s\n\n", len(rep.Organizations), target,
		rep.Elapsed.Round(100*time.Millisecond), strings.Join(names, ", "))
	fmt.Fprintf(w, "%-26s %-9s %11s %11s\n", "table", "treatment", "source rows", "target rows")
	for _, t := range rep.Tables {
		why := ""
		if t.Treatment != move.Copied {
			why = "  " + t.Why
		}
		fmt.Fprintf(w, "%-26s %-9s %11s %11s%s\n", t.Table, t.Treatment, count(t.Source), count(t.Target), why)
	}
	fmt.Fprintln(w)
	switch rep.Secret {
	case move.SecretTaken:
		fmt.Fprintln(w, "The target took the source's service secret: webhook and alert secrets, Open Cloud keys and the erasure webhook open there,")
		fmt.Fprintln(w, "and feed cursors handed out before the move read on. If the SQLite instance pinned GATEHOUSE_SECRET, pin the same on every new instance.")
	case move.SecretSame:
		fmt.Fprintln(w, "The target's service secret is the source's: everything sealed opens, and the organization's cursors read on.")
	case move.SecretResealed:
		fmt.Fprintf(w, "The target keeps its own service secret: %d sealed secrets were sealed again under it. The organization's feed\n", rep.Resealed)
		fmt.Fprintln(w, "cursors do not open there (consumers read from the start), and players erased before the move keep hashes of the source's secret.")
	}
	if len(rep.Invitations) > 0 {
		fmt.Fprintf(w, "\n%d user(s) arrive as invitations, their email being held by a user of another organization of the target;\n", len(rep.Invitations))
		fmt.Fprintf(w, "that person accepts them when signed in (Invitations): %s\n", strings.Join(rep.Invitations, ", "))
	}
	if len(rep.Renumbered) > 0 {
		fmt.Fprintf(w, "\nThe target held keys the moved rows had; they were shifted past them: %s\n", strings.Join(rep.Renumbered, ", "))
	}
	fmt.Fprintln(w, "\nSessions do not move: everyone signs in again. Start the PostgreSQL instances (restart any that ran during the move),")
	fmt.Fprintln(w, "and keep the SQLite file, stopped, until they serve.")
}

package cli

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/gatehouse/gatehouse/internal/app"

	"github.com/google/uuid"
)

// runShardList prints every shard: its id, its address, how many
// organizations live there and whether it answers.
func runShardList(ctx context.Context, e *env) error {
	f := newFlags(e, "shard list")
	if _, err := f.parse(0); err != nil {
		return err
	}
	db, err := app.OpenExisting(ctx, *f.db, f.shardList()...)
	if err != nil {
		return missingHint(err)
	}
	defer db.Close()
	list, err := db.Shards(ctx)
	if err != nil {
		return err
	}
	if *f.json {
		return f.print(list, "")
	}
	w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "SHARD\tADDRESS\tORGANIZATIONS\tSTATE")
	for _, s := range list {
		id, state := s.ID.String(), "up"
		if s.Main {
			id += " (--db)"
		}
		if !s.Up {
			state = "down: " + s.Error
		}
		if s.ID == uuid.Nil {
			id = "unknown"
		}
		fmt.Fprintf(w, "%s\t%s\t%d\t%s\n", id, s.Address, s.Organizations, state)
	}
	return w.Flush()
}

// runShardMove moves an organization to another shard while it is
// served: ORG_ID SHARD (a shard id, as shard list prints it).
func runShardMove(ctx context.Context, e *env) error {
	f := newFlags(e, "shard move")
	args, err := f.parse(2)
	if err != nil {
		return err
	}
	if len(args) != 2 {
		return usagef("shard move needs ORG_ID and SHARD (an id that shard list prints)")
	}
	org, err := parseID("ORG_ID", args[0])
	if err != nil {
		return err
	}
	to, err := parseID("SHARD", args[1])
	if err != nil {
		return err
	}
	db, err := app.OpenExisting(ctx, *f.db, f.shardList()...)
	if err != nil {
		return missingHint(err)
	}
	defer db.Close()
	say := func(format string, args ...any) { fmt.Fprintf(e.stderr, format+"\n", args...) }
	rep, err := db.MoveOrganization(ctx, org, to, say)
	if err != nil {
		return err
	}
	if *f.json {
		return f.print(rep, "")
	}
	fmt.Fprintf(e.stdout, "moved organization %s from shard %s to %s: %d events and %d other rows; copied in %s while it wrote on, its calls held %s\n",
		rep.Organization, rep.From, rep.To, rep.Events, rep.Rows, rep.Bulk.Round(time.Millisecond), rep.Freeze.Round(time.Millisecond))
	return nil
}

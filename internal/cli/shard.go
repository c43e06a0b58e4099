package cli

import (
	"context"
	"fmt"
	"text/tabwriter"

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

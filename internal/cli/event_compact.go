package cli

import (
	"context"
	"fmt"

	"github.com/gatehouse/gatehouse/internal/service"
)

// runEventCompact rebuilds packed the indexes of the months of events that
// take no more of them, now, as every instance does each hour: after a
// large import of history, say.
func runEventCompact(ctx context.Context, e *env) error {
	f := newFlags(e, "event compact")
	return withService(ctx, f, 0, func(svc *service.Service, _ []string) error {
		n, err := svc.CompactPartitions(ctx)
		if err != nil {
			return err
		}
		if *f.json {
			return f.print(map[string]int{"months": n}, "")
		}
		fmt.Fprintf(e.stdout, "rebuilt the indexes of %d months of events\n", n)
		return nil
	})
}

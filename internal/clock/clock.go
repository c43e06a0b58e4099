// Package clock holds the one wait of the loops that pause or retry: the
// service's loops, the stores' retries and the publisher's pauses.
package clock

import (
	"context"
	"time"
)

// Sleep waits d, or less when ctx ends first; it reports whether the
// whole wait passed. The loops that retry (the command watch, the
// publisher, the PostgreSQL listener) pause with it.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

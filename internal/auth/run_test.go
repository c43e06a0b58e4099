package auth_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
)

// TestRunLogsFailedFlushes: when the database refuses the last-used
// times, Run says so (they stay pending) instead of dropping the error.
func TestRunLogsFailedFlushes(t *testing.T) {
	f := newFixture(t)
	raw, _ := f.key(t, nil)
	if _, err := f.auth.Authenticate(context.Background(), "Bearer "+raw, nil); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	f.auth.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
	f.db.Close() // the write of the pending last use fails
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // Run flushes once more and returns
	f.auth.Run(ctx)
	if !strings.Contains(logs.String(), "writing last-used times failed") || !strings.Contains(logs.String(), `"level":"ERROR"`) {
		t.Errorf("a failed flush was not logged: %q", logs.String())
	}
}

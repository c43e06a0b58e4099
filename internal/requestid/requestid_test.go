package requestid_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/internal/requestid"
)

func TestLoggerNamesTheRequestOnce(t *testing.T) {
	var buf bytes.Buffer
	log := requestid.Logger(requestid.Logger(slog.New(slog.NewJSONHandler(&buf, nil))))
	ctx := requestid.NewContext(context.Background(), "req-1")
	log.ErrorContext(ctx, "store failed", "error", "boom")
	log.With("component", "x").LogAttrs(ctx, slog.LevelError, "named", slog.String("requestId", "req-1"))
	log.Info("startup")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	for i, want := range []string{"req-1", "req-1", ""} {
		var m map[string]any
		if err := json.Unmarshal([]byte(lines[i]), &m); err != nil {
			t.Fatal(err)
		}
		if got, _ := m["requestId"].(string); got != want {
			t.Errorf("line %d: requestId %q, want %q", i, got, want)
		}
		if n := strings.Count(lines[i], `"requestId"`); n > 1 {
			t.Errorf("line %d names the request %d times: %s", i, n, lines[i])
		}
	}
}

package opencloud_test

import (
	"io"
	"log/slog"
	"sync"
)

// slogTo logs JSON lines to w, guarded by mu.
func slogTo(mu *sync.Mutex, w io.Writer) *slog.Logger {
	return slog.New(slog.NewJSONHandler(lockedWriter{mu, w}, nil))
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

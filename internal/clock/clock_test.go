package clock_test

import (
	"context"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/internal/clock"
)

func TestSleepWaitsTheWholeDuration(t *testing.T) {
	start := time.Now()
	if !clock.Sleep(context.Background(), 20*time.Millisecond) {
		t.Fatal("Sleep = false on a live context; want true")
	}
	if waited := time.Since(start); waited < 20*time.Millisecond {
		t.Fatalf("Sleep returned after %v; want at least 20ms", waited)
	}
}

func TestSleepEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if clock.Sleep(ctx, time.Hour) {
		t.Fatal("Sleep = true on an ended context; want false")
	}
	if waited := time.Since(start); waited > time.Minute {
		t.Fatalf("Sleep waited %v on an ended context", waited)
	}
}

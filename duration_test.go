package gatehouse_test

import (
	"errors"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

func TestParseDuration(t *testing.T) {
	const day = 24 * time.Hour
	for in, want := range map[string]time.Duration{
		"30d":     30 * day,
		"1d12h":   day + 12*time.Hour,
		"1d":      day,
		"0d":      0,
		"2d30m5s": 2*day + 30*time.Minute + 5*time.Second,
		"-2d":     -2 * day,
		"+1d1h":   day + time.Hour,
		"720h":    720 * time.Hour,
		"1h30m":   90 * time.Minute,
		"0":       0,
		"-5m":     -5 * time.Minute,
		"106751d": 106751 * day,
	} {
		got, err := gatehouse.ParseDuration(in)
		if err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "d", "30", "1.5d", "d1h", "1d-3h", "1d+3h", "--1d", "-+1d", "+-1d", "1dd", "1d2d", "1w", "x1d", "1 d", "106752d", "106751d24h"} {
		if got, err := gatehouse.ParseDuration(in); !errors.Is(err, gatehouse.ErrInvalid) {
			t.Errorf("ParseDuration(%q) = %v, %v; want ErrInvalid", in, got, err)
		}
	}
}

package gatehouse

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// day is the length ParseDuration gives a "d": 24 hours, not a calendar
// day, so "30d" is the same span in every time zone and season.
const day = 24 * time.Hour

// ParseDuration reads a duration as time.ParseDuration does ("720h",
// "1h30m"), and also with a leading whole number of days: "30d", "1d12h",
// "-2d". Operators think of key lifetimes in days; Go's parser stops at
// hours. It returns an error wrapping [ErrInvalid] when s is neither, or
// when the span overflows a [time.Duration] (about 290 years).
func ParseDuration(s string) (time.Duration, error) {
	rest, sign := s, time.Duration(1)
	if r, ok := strings.CutPrefix(rest, "-"); ok {
		rest, sign = r, -1
	} else if r, ok := strings.CutPrefix(rest, "+"); ok {
		rest = r
	}
	digits, after, hasDays := strings.Cut(rest, "d")
	if !hasDays {
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, durationError(s)
		}
		return d, nil
	}
	days, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || days < 0 || strings.HasPrefix(digits, "+") || days > math.MaxInt64/int64(day) {
		return 0, durationError(s)
	}
	d := time.Duration(days) * day
	if after != "" {
		// The sign was taken above: "1d-3h" is not a duration.
		if after[0] == '-' || after[0] == '+' {
			return 0, durationError(s)
		}
		more, err := time.ParseDuration(after)
		if err != nil || more > math.MaxInt64-d {
			return 0, durationError(s)
		}
		d += more
	}
	return sign * d, nil
}

func durationError(s string) error {
	return fmt.Errorf("%w: duration %q: want a number and a unit, e.g. 30d, 1d12h, 720h or 90m", ErrInvalid, s)
}

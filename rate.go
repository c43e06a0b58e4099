package gatehouse

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Rate is a sustained request rate: Count requests every Per.
type Rate struct {
	Count int
	Per   time.Duration
}

// ParseRate reads "N/s" or "N/m" with N a positive integer.
func ParseRate(s string) (Rate, error) {
	n, unit, ok := strings.Cut(strings.TrimSpace(s), "/")
	count, err := strconv.Atoi(n)
	if !ok || err != nil || count < 1 {
		return Rate{}, fmt.Errorf("rate %q: want N/s or N/m with N a positive integer", s)
	}
	switch unit {
	case "s":
		return Rate{Count: count, Per: time.Second}, nil
	case "m":
		return Rate{Count: count, Per: time.Minute}, nil
	}
	return Rate{}, fmt.Errorf("rate %q: unit must be s or m", s)
}

// String writes the rate as ParseRate reads it.
func (r Rate) String() string {
	if r.Per == time.Minute {
		return fmt.Sprintf("%d/m", r.Count)
	}
	return fmt.Sprintf("%d/s", r.Count)
}

// Interval is the time one request costs: Per / Count.
func (r Rate) Interval() time.Duration {
	return r.Per / time.Duration(r.Count)
}

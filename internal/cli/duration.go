package cli

import (
	"time"

	"github.com/gatehouse/gatehouse"
)

// durationValue is a flag read by gatehouse.ParseDuration, so that every
// duration flag accepts days ("30d", "1d12h") as well as Go's units.
type durationValue time.Duration

func (d *durationValue) String() string { return time.Duration(*d).String() }

func (d *durationValue) Set(s string) error {
	v, err := gatehouse.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = durationValue(v)
	return nil
}

// duration defines a duration flag that accepts days, the counterpart of
// flag.FlagSet.Duration.
func (f *flags) duration(name string, def time.Duration, usage string) *time.Duration {
	d := def
	f.Var((*durationValue)(&d), name, usage)
	return &d
}

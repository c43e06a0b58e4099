package sqlstore

import "time"

// SetClockForTest sets the clock the cache ages by.
func (c *TermCache) SetClockForTest(now func() time.Time) { c.terms.now = now }

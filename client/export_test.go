package client

import (
	"context"
	"time"
)

// SetSleep replaces how the client waits out a Retry-After.
func SetSleep(c *Client, sleep func(context.Context, time.Duration) error) { c.sleep = sleep }

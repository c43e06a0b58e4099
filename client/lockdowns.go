package client

import (
	"context"
	"iter"
	"net/url"
	"strconv"
	"time"
)

// Lockdown is a lockdown as the API returns it: every access point it
// covers denies everyone with reason LOCKDOWN from StartedAt until the
// earlier of Until and ReleasedAt.
type Lockdown struct {
	ID          string         `json:"id"`
	Scope       string         `json:"scope"` // ORGANIZATION, UNIVERSE or LOCATION
	UniverseID  *string        `json:"universeId"`
	LocationID  *string        `json:"locationId"`
	Location    *NamedRef      `json:"location"`
	Reason      string         `json:"reason"`
	StartedAt   time.Time      `json:"startedAt"`
	Until       *time.Time     `json:"until"`
	ReleasedAt  *time.Time     `json:"releasedAt"`
	Active      bool           `json:"active"`
	RequestedBy *Requester     `json:"requestedBy"`
	IssuedByKey *KeyRef        `json:"issuedByKey"`
	ReleasedBy  *LockdownActor `json:"releasedBy"`
	// Targets are the counts of its start commands: the servers live at
	// its start, and how many received and applied it.
	Targets CommandTargets `json:"targets"`
}

// LockdownActor is who released a lockdown: Type "user" (ID, Email,
// Name), "key" (ID, Name, Prefix) or "system" (its until came).
type LockdownActor struct {
	Type   string `json:"type"`
	ID     string `json:"id,omitempty"`
	Email  string `json:"email,omitempty"`
	Name   string `json:"name,omitempty"`
	Prefix string `json:"prefix,omitempty"`
}

// LockdownRequest is a lockdown to start: Scope ORGANIZATION (nothing
// else), UNIVERSE (UniverseID) or LOCATION (LocationID), a Reason of at
// most 200 characters, and optionally an Until at most 30 days ahead.
type LockdownRequest struct {
	Scope      string     `json:"scope"`
	UniverseID string     `json:"universeId,omitempty"`
	LocationID string     `json:"locationId,omitempty"`
	Reason     string     `json:"reason"`
	Until      *time.Time `json:"until,omitempty"`
}

// StartLockdown starts a lockdown (scope commands:write). A retry after a
// 429 or 503 may start a second one covering the same access points,
// which denies alike; release both.
func (c *Client) StartLockdown(ctx context.Context, r LockdownRequest) (*Lockdown, error) {
	var out Lockdown
	if err := c.do(ctx, "POST", "/api/consumer/v1/lockdowns", nil, r, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// Lockdown returns one lockdown; an unknown id (or another
// organization's) is an *Error with Status 404.
func (c *Client) Lockdown(ctx context.Context, id string) (*Lockdown, error) {
	var out Lockdown
	if err := c.do(ctx, "GET", "/api/consumer/v1/lockdowns/"+url.PathEscape(id), nil, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ReleaseLockdown releases a lockdown now; one released already is
// returned as it is.
func (c *Client) ReleaseLockdown(ctx context.Context, id string) (*Lockdown, error) {
	var out Lockdown
	if err := c.do(ctx, "POST", "/api/consumer/v1/lockdowns/"+url.PathEscape(id)+"/release", nil, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// LockdownPage is one page of lockdowns, newest first.
type LockdownPage struct {
	Data       []Lockdown `json:"data"`
	NextCursor *string    `json:"nextCursor"` // nil on the last page
}

// ListLockdowns returns one page of lockdowns (only those running with
// active), the first for an empty cursor; limit 0 is the server's default.
func (c *Client) ListLockdowns(ctx context.Context, active bool, limit int, cursor string) (*LockdownPage, error) {
	v := url.Values{}
	if active {
		v.Set("active", "true")
	}
	if limit != 0 {
		v.Set("limit", strconv.Itoa(limit))
	}
	if cursor != "" {
		v.Set("cursor", cursor)
	}
	var page LockdownPage
	if err := c.do(ctx, "GET", "/api/consumer/v1/lockdowns", v, nil, &page); err != nil {
		return nil, err
	}
	return &page, nil
}

// Lockdowns walks every lockdown (only those running with active),
// newest first. It stops at the first error, which it yields.
func (c *Client) Lockdowns(ctx context.Context, active bool) iter.Seq2[Lockdown, error] {
	return walk(func(cursor string) ([]Lockdown, *string, error) {
		page, err := c.ListLockdowns(ctx, active, 0, cursor)
		if err != nil {
			return nil, nil, err
		}
		return page.Data, page.NextCursor, nil
	})
}

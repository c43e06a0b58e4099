package client

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Command is a remote command and where it stands, as the API returns it.
// Status only moves forward: PENDING, DELIVERED, then one of EXECUTED,
// FAILED, EXPIRED or CANCELLED.
type Command struct {
	ID              string         `json:"id"`
	Type            string         `json:"type"`   // UNLOCK, or LOCKDOWN (in sync answers)
	Status          string         `json:"status"` // PENDING, DELIVERED, EXECUTED, FAILED, EXPIRED or CANCELLED
	FailureReason   *string        `json:"failureReason"`
	Scope           string         `json:"scope"` // UNIVERSE, SERVER or PLAYER
	ServerJobID     *string        `json:"serverJobId"`
	PlatformUserID  *string        `json:"platformUserId"`
	UniverseID      string         `json:"universeId"`
	AccessPoint     NamedRef       `json:"accessPoint"`
	Location        NamedRef       `json:"location"`
	DurationSeconds int            `json:"durationSeconds"`
	Note            *string        `json:"note"`
	IssuedAt        time.Time      `json:"issuedAt"`
	ExpiresAt       time.Time      `json:"expiresAt"`
	StatusAt        time.Time      `json:"statusAt"`
	StartedAt       *time.Time     `json:"startedAt"`
	RequestedBy     *Requester     `json:"requestedBy"`
	IssuedByKey     *KeyRef        `json:"issuedByKey"`
	Targets         CommandTargets `json:"targets"`
	// Deliveries is set by Command (and IssueCommand): one per server.
	Deliveries []Delivery `json:"deliveries,omitempty"`
	// RemainingSeconds is set in a sync answer: how long the server keeps
	// the access point unlocked from now.
	RemainingSeconds *int `json:"remainingSeconds,omitempty"`
	// Lockdown is, for a LOCKDOWN command, the lockdown as of the
	// command's issue (ReleasedAt nil for a start); nil for an UNLOCK.
	Lockdown *Lockdown `json:"lockdown"`
}

// KeyRef names the API key that issued a command.
type KeyRef struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Prefix string `json:"prefix"`
}

// CommandTargets counts, of the servers live when the command was issued,
// those that received, applied and failed it; Joined counts the servers
// that started during the unlock and received it.
type CommandTargets struct {
	Live      int `json:"live"`
	Delivered int `json:"delivered"`
	Executed  int `json:"executed"`
	Failed    int `json:"failed"`
	Joined    int `json:"joined"`
}

// Delivery is one game server's copy of a command.
type Delivery struct {
	ServerJobID string     `json:"serverJobId"`
	Target      bool       `json:"target"` // live at issue: counts in Targets
	DeliveredAt *time.Time `json:"deliveredAt"`
	Result      *string    `json:"result"` // EXECUTED, FAILED, or nil until the server answers
	Detail      *string    `json:"detail"`
	AckedAt     *time.Time `json:"ackedAt"`
}

// CommandRequest is a remote unlock to issue. Zero fields are the
// server's defaults (type UNLOCK, 10 seconds unlocked, 60 seconds to be
// executed).
type CommandRequest struct {
	AccessPointID   string `json:"accessPointId"`
	Scope           string `json:"scope"`                    // UNIVERSE, SERVER or PLAYER
	ServerJobID     string `json:"serverJobId,omitempty"`    // with SERVER
	PlatformUserID  string `json:"platformUserId,omitempty"` // with PLAYER
	DurationSeconds int    `json:"durationSeconds,omitempty"`
	TTLSeconds      int    `json:"ttlSeconds,omitempty"`
	Note            string `json:"note,omitempty"`
}

// IssueOption configures one IssueCommand call.
type IssueOption func(*issueOptions)

type issueOptions struct{ key string }

// WithIdempotencyKey sends key as the Idempotency-Key: for 24 hours the
// same key with the same request answers the command first issued, and
// with another request is a 409 (*Error with Code "conflict"). Use a key
// your own system derives from the action (an order id, say) so that a
// retry after a crash of yours is safe too.
func WithIdempotencyKey(key string) IssueOption { return func(o *issueOptions) { o.key = key } }

// IssueCommand issues a remote unlock and returns the command, with
// replayed true when the server answered with the command an earlier
// request with the same idempotency key issued. Without
// WithIdempotencyKey a random key is sent, so that the retries after a
// 429 or 503 never issue the command twice.
func (c *Client) IssueCommand(ctx context.Context, r CommandRequest, opts ...IssueOption) (cmd *Command, replayed bool, err error) {
	o := issueOptions{key: newUUID()}
	for _, opt := range opts {
		opt(&o)
	}
	var out Command
	_, h, err := c.exchange(ctx, "POST", "/api/consumer/v1/commands", nil, http.Header{"Idempotency-Key": {o.key}}, r, &out)
	if err != nil {
		return nil, false, err
	}
	return &out, h.Get("Idempotent-Replayed") == "true", nil
}

// CommandQuery filters commands; zero fields are absent.
type CommandQuery struct {
	Status        string
	Scope         string
	AccessPointID string
	LocationID    string
	Limit         int // page size, 1–500; 0 is the server's default (50)
}

func (q CommandQuery) values() url.Values {
	v := url.Values{}
	for name, value := range map[string]string{"status": q.Status, "scope": q.Scope, "accessPointId": q.AccessPointID, "locationId": q.LocationID} {
		if value != "" {
			v.Set(name, value)
		}
	}
	if q.Limit != 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	return v
}

// CommandPage is one page of commands, newest first.
type CommandPage struct {
	Data       []Command `json:"data"`
	NextCursor *string   `json:"nextCursor"` // nil on the last page
}

// ListCommands returns one page: the first for an empty cursor, else the
// one after the page that returned cursor (with the same query).
func (c *Client) ListCommands(ctx context.Context, q CommandQuery, cursor string) (*CommandPage, error) {
	v := q.values()
	if cursor != "" {
		v.Set("cursor", cursor)
	}
	var page CommandPage
	if err := c.do(ctx, "GET", "/api/consumer/v1/commands", v, nil, &page); err != nil {
		return nil, err
	}
	return &page, nil
}

// Commands walks every command of the query, newest first, each exactly
// once. It stops at the first error, which it yields.
func (c *Client) Commands(ctx context.Context, q CommandQuery) iter.Seq2[Command, error] {
	return walk(func(cursor string) ([]Command, *string, error) {
		page, err := c.ListCommands(ctx, q, cursor)
		if err != nil {
			return nil, nil, err
		}
		return page.Data, page.NextCursor, nil
	})
}

// Command returns one command with its deliveries; an unknown id (or
// another organization's) is an *Error with Status 404.
func (c *Client) Command(ctx context.Context, id string) (*Command, error) {
	var out Command
	if err := c.do(ctx, "GET", "/api/consumer/v1/commands/"+url.PathEscape(id), nil, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CancelCommand cancels a command that has not settled. A settled one is
// an *Error with Status 409, returned with the command as it settled.
func (c *Client) CancelCommand(ctx context.Context, id string) (*Command, error) {
	var out Command
	err := c.do(ctx, "POST", "/api/consumer/v1/commands/"+url.PathEscape(id)+"/cancel", nil, nil, &out)
	var apiErr *Error
	if errors.As(err, &apiErr) && apiErr.Status == http.StatusConflict {
		var body struct {
			Command *Command `json:"command"`
		}
		if json.Unmarshal(apiErr.body, &body) == nil && body.Command != nil {
			return body.Command, err
		}
	}
	if err != nil {
		return nil, err
	}
	return &out, nil
}

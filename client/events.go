package client

import (
	"context"
	"crypto/rand"
	"fmt"
	"iter"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Event is one access attempt or remote-unlock event, as the API returns it.
type Event struct {
	ID             string    `json:"id"`
	Type           string    `json:"type"` // ACCESS_GRANTED, ACCESS_DENIED or REMOTE_UNLOCK
	OccurredAt     time.Time `json:"occurredAt"`
	ReceivedAt     time.Time `json:"receivedAt"`
	Allowed        *string   `json:"allowed"` // granted, denied, or nil for remote unlocks
	Reason         *string   `json:"reason"`
	PlatformUserID *string   `json:"platformUserId"`
	// PlatformUserName is the player's display name as the game server
	// reported it, nil when it did not.
	PlatformUserName *string         `json:"platformUserName"`
	ServerJobID      *string         `json:"serverJobId"`
	Scope            *string         `json:"scope"` // UNIVERSE, SERVER or PLAYER, for remote unlocks
	Location         NamedRef        `json:"location"`
	AccessPoint      NamedRef        `json:"accessPoint"`
	RequestedBy      *Requester      `json:"requestedBy"`
	Command          *CommandSummary `json:"command"`
}

// NamedRef is a location or access point as an event records it.
type NamedRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// Requester is the dashboard user who asked for a remote unlock.
type Requester struct {
	ID    string `json:"id"`
	Email string `json:"email"`
	Name  string `json:"name"`
}

// CommandSummary is the remote-unlock command an event belongs to.
type CommandSummary struct {
	ID             string    `json:"id"`
	Scope          string    `json:"scope"`
	Status         string    `json:"status"`
	ServerJobID    *string   `json:"serverJobId"`
	PlatformUserID *string   `json:"platformUserId"`
	IssuedAt       time.Time `json:"issuedAt"`
}

// EventQuery filters events; zero fields are absent. Every filter narrows.
type EventQuery struct {
	AccessPointID  string
	LocationID     string
	Types          []string // any of these types
	Allowed        string   // granted or denied
	PlatformUserID string
	Reason         string
	Scope          string
	Q              string // case-insensitive substring, or prefix of the event id; an exact event id looks the event up
	From, To       time.Time
	Limit          int // page size, 1–500; 0 is the server's default (50)
}

func (q EventQuery) values() url.Values {
	v := url.Values{}
	set := func(name, value string) {
		if value != "" {
			v.Set(name, value)
		}
	}
	set("accessPointId", q.AccessPointID)
	set("locationId", q.LocationID)
	set("type", strings.Join(q.Types, ","))
	set("allowed", q.Allowed)
	set("platformUserId", q.PlatformUserID)
	set("reason", q.Reason)
	set("scope", q.Scope)
	set("q", q.Q)
	if !q.From.IsZero() {
		v.Set("dateFrom", q.From.UTC().Format(time.RFC3339Nano))
	}
	if !q.To.IsZero() {
		v.Set("dateTo", q.To.UTC().Format(time.RFC3339Nano))
	}
	if q.Limit != 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	return v
}

// EventPage is one page of events.
type EventPage struct {
	Data       []Event   `json:"data"`
	NextCursor *string   `json:"nextCursor"` // nil on the last page
	Meta       EventMeta `json:"meta"`
}

// EventMeta says how the server read the query.
type EventMeta struct {
	Limit             int        `json:"limit"`
	DateFrom          *time.Time `json:"dateFrom"`
	DateTo            *time.Time `json:"dateTo"`
	DateRangeNarrowed bool       `json:"dateRangeNarrowed"` // the window was cut to 366 days
	Types             []string   `json:"types"`
	IgnoredTypes      []string   `json:"ignoredTypes"`
	// Partial: q is found in very many distinct values (a letter or two,
	// say) and the server's search stopped at its budget before the page
	// was full; more may match after it, and NextCursor goes on.
	Partial bool `json:"partial"`
}

// ListEvents returns one page: the first for an empty cursor, else the one
// after the page that returned cursor (with the same query).
func (c *Client) ListEvents(ctx context.Context, q EventQuery, cursor string) (*EventPage, error) {
	v := q.values()
	if cursor != "" {
		v.Set("cursor", cursor)
	}
	var page EventPage
	if err := c.do(ctx, "GET", "/api/consumer/v1/events", v, nil, &page); err != nil {
		return nil, err
	}
	return &page, nil
}

// Events walks every page of the query, newest first, each event exactly
// once. It stops at the first error, which it yields.
func (c *Client) Events(ctx context.Context, q EventQuery) iter.Seq2[Event, error] {
	return walk(func(cursor string) ([]Event, *string, error) {
		page, err := c.ListEvents(ctx, q, cursor)
		if err != nil {
			return nil, nil, err
		}
		return page.Data, page.NextCursor, nil
	})
}

// walk yields every item of the pages that fetch returns, following their
// cursors from the first page, and stops at the first error, which it
// yields.
func walk[T any](fetch func(cursor string) ([]T, *string, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		cursor := ""
		for {
			items, next, err := fetch(cursor)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, item := range items {
				if !yield(item, nil) {
					return
				}
			}
			if next == nil {
				return
			}
			cursor = *next
		}
	}
}

// IngestEvent is an event to record.
type IngestEvent struct {
	// ID makes a retried batch safe: an id already stored is counted as a
	// duplicate, not stored twice. IngestEvents fills in missing ids.
	ID             string    `json:"id,omitempty"`
	Type           string    `json:"type"`
	OccurredAt     time.Time `json:"occurredAt"`
	AccessPointID  string    `json:"accessPointId"`
	Allowed        string    `json:"allowed,omitempty"`
	Reason         string    `json:"reason,omitempty"`
	PlatformUserID string    `json:"platformUserId,omitempty"`
	// PlatformUserName is the player's display name, with PlatformUserID.
	PlatformUserName string         `json:"platformUserName,omitempty"`
	ServerJobID      string         `json:"serverJobId,omitempty"`
	Scope            string         `json:"scope,omitempty"`
	RequestedBy      string         `json:"requestedBy,omitempty"`
	Command          *IngestCommand `json:"command,omitempty"`
}

// IngestCommand is the remote-unlock command an ingested event reports on.
type IngestCommand struct {
	ID             string     `json:"id"`
	Status         string     `json:"status"`
	Scope          string     `json:"scope,omitempty"`
	ServerJobID    string     `json:"serverJobId,omitempty"`
	PlatformUserID string     `json:"platformUserId,omitempty"`
	IssuedAt       *time.Time `json:"issuedAt,omitempty"`
}

// IngestResult is what POST /events answers.
type IngestResult struct {
	Accepted   int      `json:"accepted"`
	Duplicates int      `json:"duplicates"`
	IDs        []string `json:"ids"` // in the order sent
}

// MaxBatch is the most events one IngestEvents call may send.
const MaxBatch = 1000

// IngestEvents records up to MaxBatch events in one all-or-nothing batch.
// Events without an id get a random one first, so that the retries after
// a 429 or 503 can never store an event twice.
func (c *Client) IngestEvents(ctx context.Context, events []IngestEvent) (*IngestResult, error) {
	if len(events) > MaxBatch {
		return nil, fmt.Errorf("gatehouse client: %d events; send at most %d per batch", len(events), MaxBatch)
	}
	batch := make([]IngestEvent, len(events))
	for i, ev := range events {
		if ev.ID == "" {
			ev.ID = newUUID()
		}
		batch[i] = ev
	}
	var res IngestResult
	if err := c.do(ctx, "POST", "/api/consumer/v1/events", nil, map[string]any{"events": batch}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

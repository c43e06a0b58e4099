package client

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Grant is a timed pass as the API returns it: the player passes the
// access points it lists, or every access point of its location, from
// From until the earlier of Until and RevokedAt, whatever their schedule
// and allow rules.
type Grant struct {
	ID             string      `json:"id"`
	PlatformUserID string      `json:"platformUserId"`
	AccessPointIDs []string    `json:"accessPointIds"`
	LocationID     *string     `json:"locationId"`
	From           time.Time   `json:"from"`
	Until          time.Time   `json:"until"`
	Note           *string     `json:"note"`
	Source         GrantSource `json:"source"`
	CreatedAt      time.Time   `json:"createdAt"`
	RevokedAt      *time.Time  `json:"revokedAt"`
	Active         bool        `json:"active"` // running when it was read
	CreatedBy      *Requester  `json:"createdBy"`
	CreatedByKey   *KeyRef     `json:"createdByKey"`
}

// GrantSource is where a grant comes from: Type DEVELOPER_PRODUCT,
// GAME_PASS or MANUAL, and the platform's purchase id.
type GrantSource struct {
	Type      string  `json:"type"`
	ReceiptID *string `json:"receiptId"`
}

// GrantRequest is a grant to make: AccessPointIDs or LocationID, Until
// at most 366 days after From (zero From is now). A Source with a
// ReceiptID makes it idempotent: the same receipt id answers the grant
// first made.
type GrantRequest struct {
	PlatformUserID string       `json:"platformUserId"`
	AccessPointIDs []string     `json:"accessPointIds,omitempty"`
	LocationID     string       `json:"locationId,omitempty"`
	From           *time.Time   `json:"from,omitempty"`
	Until          time.Time    `json:"until"`
	Note           string       `json:"note,omitempty"`
	Source         *GrantSource `json:"source,omitempty"`
}

// CreateGrant makes a grant (a key with policies:write, or server for
// a purchase) and returns it, with created false when the organization
// held a grant of the same receipt id already: that grant is returned,
// so a purchase handler may call it again after any failure.
func (c *Client) CreateGrant(ctx context.Context, r GrantRequest) (g *Grant, created bool, err error) {
	var out Grant
	status, _, err := c.exchange(ctx, "POST", "/api/consumer/v1/grants", nil, nil, r, &out)
	if err != nil {
		return nil, false, err
	}
	return &out, status == http.StatusCreated, nil
}

// GrantQuery filters grants; zero fields are absent.
type GrantQuery struct {
	PlatformUserID string
	AccessPointID  string // grants listing it or of its location
	Active         *bool  // true: running now; false: the others
	Limit          int    // page size, 1–500; 0 is the server's default (50)
}

func (q GrantQuery) values() url.Values {
	v := url.Values{}
	if q.PlatformUserID != "" {
		v.Set("platformUserId", q.PlatformUserID)
	}
	if q.AccessPointID != "" {
		v.Set("accessPointId", q.AccessPointID)
	}
	if q.Active != nil {
		v.Set("active", strconv.FormatBool(*q.Active))
	}
	if q.Limit != 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	return v
}

// GrantPage is one page of grants, newest first.
type GrantPage struct {
	Data       []Grant `json:"data"`
	NextCursor *string `json:"nextCursor"` // nil on the last page
}

// ListGrants returns one page: the first for an empty cursor, else the
// one after the page that returned cursor (with the same query).
func (c *Client) ListGrants(ctx context.Context, q GrantQuery, cursor string) (*GrantPage, error) {
	v := q.values()
	if cursor != "" {
		v.Set("cursor", cursor)
	}
	var page GrantPage
	if err := c.do(ctx, "GET", "/api/consumer/v1/grants", v, nil, &page); err != nil {
		return nil, err
	}
	return &page, nil
}

// Grants walks every grant of the query, newest first, each exactly
// once. It stops at the first error, which it yields.
func (c *Client) Grants(ctx context.Context, q GrantQuery) iter.Seq2[Grant, error] {
	return walk(func(cursor string) ([]Grant, *string, error) {
		page, err := c.ListGrants(ctx, q, cursor)
		if err != nil {
			return nil, nil, err
		}
		return page.Data, page.NextCursor, nil
	})
}

// Grant returns one grant; an unknown id (or another organization's) is
// an *Error with Status 404.
func (c *Client) Grant(ctx context.Context, id string) (*Grant, error) {
	var out Grant
	if err := c.do(ctx, "GET", "/api/consumer/v1/grants/"+url.PathEscape(id), nil, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// RevokeGrant ends a grant now and returns it with RevokedAt; a grant
// revoked already is returned as it is.
func (c *Client) RevokeGrant(ctx context.Context, id string) (*Grant, error) {
	var out Grant
	if err := c.do(ctx, "DELETE", "/api/consumer/v1/grants/"+url.PathEscape(id), nil, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

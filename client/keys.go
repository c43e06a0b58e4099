package client

import (
	"context"
	"net/url"
	"time"
)

// APIKey is one of the organization's API keys as lists show it: never
// the key itself, which is shown once, when it is created.
type APIKey struct {
	ID     string   `json:"id"`
	Name   string   `json:"name"`
	Prefix string   `json:"prefix"` // gk_ and the key's first 8 random characters
	Scopes []string `json:"scopes"`
	// Locations are the ids of the locations the key is limited to;
	// empty: the whole organization.
	Locations []string `json:"locations"`
	// RateLimit is the key's own sustained rate, "N/s" or "N/m"; nil:
	// the server's.
	RateLimit *string `json:"rateLimit"`
	Status    string  `json:"status"` // active, revoked, expired
	// ExpiresSoon is set while the key is active and expires within 14
	// days: replace it before the servers that use it start failing.
	ExpiresSoon bool       `json:"expiresSoon"`
	ExpiresAt   *time.Time `json:"expiresAt"`
	RevokedAt   *time.Time `json:"revokedAt"`
	LastUsedAt  *time.Time `json:"lastUsedAt"` // written at most once a minute
	CreatedAt   time.Time  `json:"createdAt"`
}

const keysPath = "/api/consumer/v1/keys"

// ListKeys returns the organization's keys (a key with keys:write).
func (c *Client) ListKeys(ctx context.Context) ([]APIKey, error) {
	var list struct{ Data []APIKey }
	return list.Data, c.do(ctx, "GET", keysPath, nil, nil, &list)
}

// SetKeyRate gives a key its own sustained rate, "N/s" or "N/m", or with
// nil the server's again. A key never changes its own rate, nor that of
// another key with keys:write: that is an *Error with Status 403 and
// Code "key_not_changeable".
func (c *Client) SetKeyRate(ctx context.Context, id string, rate *string) (*APIKey, error) {
	var k APIKey
	body := struct {
		RateLimit *string `json:"rateLimit"`
	}{rate}
	return &k, c.do(ctx, "PATCH", keysPath+"/"+url.PathEscape(id), nil, body, &k)
}

package client

import (
	"context"
	"iter"
	"net/url"
	"strconv"
	"time"
)

// Location groups access points.
type Location struct {
	ID         string    `json:"id"`
	Name       string    `json:"name"`
	UniverseID *string   `json:"universeId"` // the platform universe its commands go to, if set
	CreatedAt  time.Time `json:"createdAt"`
	// ArchivedAt is when the location was archived, nil while it is in
	// use. Lists show archived locations only with WithArchived.
	ArchivedAt   *time.Time    `json:"archivedAt"`
	AccessPoints []AccessPoint `json:"accessPoints"`
}

// AccessPoint is a door, gate or area of a location.
type AccessPoint struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// ArchivedAt is when the access point was archived, nil while it is
	// in use (one of an archived location is archived in effect).
	ArchivedAt *time.Time `json:"archivedAt"`
	// LocationID and CreatedAt are set in the answers of
	// ArchiveAccessPoint and RestoreAccessPoint; a location's list of
	// access points leaves them empty.
	LocationID string     `json:"locationId,omitempty"`
	CreatedAt  *time.Time `json:"createdAt,omitempty"`
}

// LocationPage is one page of locations, by name.
type LocationPage struct {
	Data       []Location `json:"data"`
	NextCursor *string    `json:"nextCursor"`
}

// LocationOption changes what a list of locations holds.
type LocationOption func(url.Values)

// WithArchived lists archived locations and access points too, each with
// its ArchivedAt (archived=true). A cursor is bound to it: pass it to
// every page.
func WithArchived() LocationOption { return func(v url.Values) { v.Set("archived", "true") } }

// ListLocations returns one page of locations (limit 0: the server's
// default), those in use unless WithArchived.
func (c *Client) ListLocations(ctx context.Context, limit int, cursor string, opts ...LocationOption) (*LocationPage, error) {
	v := url.Values{}
	if limit != 0 {
		v.Set("limit", strconv.Itoa(limit))
	}
	if cursor != "" {
		v.Set("cursor", cursor)
	}
	for _, o := range opts {
		o(v)
	}
	var page LocationPage
	if err := c.do(ctx, "GET", "/api/consumer/v1/locations", v, nil, &page); err != nil {
		return nil, err
	}
	return &page, nil
}

// Locations walks every location with its access points, by name.
func (c *Client) Locations(ctx context.Context, opts ...LocationOption) iter.Seq2[Location, error] {
	return walk(func(cursor string) ([]Location, *string, error) {
		page, err := c.ListLocations(ctx, 0, cursor, opts...)
		if err != nil {
			return nil, nil, err
		}
		return page.Data, page.NextCursor, nil
	})
}

// ArchiveLocation archives a location (scope locations:write): it and its
// access points leave the lists, their events stay and are still found,
// their policies still decide, and a new write naming them (a policy, an
// unlock, a grant, a lockdown) is an *Error with Status 409 until it is
// restored. Archiving an archived location returns it as it is.
func (c *Client) ArchiveLocation(ctx context.Context, id string) (*Location, error) {
	return c.locationAction(ctx, id, "archive")
}

// RestoreLocation puts an archived location back in use.
func (c *Client) RestoreLocation(ctx context.Context, id string) (*Location, error) {
	return c.locationAction(ctx, id, "restore")
}

func (c *Client) locationAction(ctx context.Context, id, action string) (*Location, error) {
	var out Location
	if err := c.do(ctx, "POST", "/api/consumer/v1/locations/"+url.PathEscape(id)+"/"+action, nil, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteLocation deletes a location made by mistake, with its grants. One
// with access points, or that events, remote commands or lockdowns name,
// is an *Error with Status 409 (Code "conflict") that says what to do
// instead: delete or move its access points, or archive it.
func (c *Client) DeleteLocation(ctx context.Context, id string) error {
	return c.do(ctx, "DELETE", "/api/consumer/v1/locations/"+url.PathEscape(id), nil, nil, nil)
}

// ArchiveAccessPoint archives an access point (scope locations:write), as
// ArchiveLocation archives a location.
func (c *Client) ArchiveAccessPoint(ctx context.Context, id string) (*AccessPoint, error) {
	return c.accessPointAction(ctx, id, "archive")
}

// RestoreAccessPoint puts an archived access point back in use.
func (c *Client) RestoreAccessPoint(ctx context.Context, id string) (*AccessPoint, error) {
	return c.accessPointAction(ctx, id, "restore")
}

func (c *Client) accessPointAction(ctx context.Context, id, action string) (*AccessPoint, error) {
	var out AccessPoint
	if err := c.do(ctx, "POST", "/api/consumer/v1/access-points/"+url.PathEscape(id)+"/"+action, nil, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteAccessPoint deletes an access point made by mistake, with its
// policy, and takes it off its grants. One that events or remote commands
// name is an *Error with Status 409 saying to archive it instead.
func (c *Client) DeleteAccessPoint(ctx context.Context, id string) error {
	return c.do(ctx, "DELETE", "/api/consumer/v1/access-points/"+url.PathEscape(id), nil, nil, nil)
}

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
	ID           string        `json:"id"`
	Name         string        `json:"name"`
	UniverseID   *string       `json:"universeId"` // the platform universe its commands go to, if set
	CreatedAt    time.Time     `json:"createdAt"`
	AccessPoints []AccessPoint `json:"accessPoints"`
}

// AccessPoint is a door, gate or area of a location.
type AccessPoint struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// LocationPage is one page of locations, by name.
type LocationPage struct {
	Data       []Location `json:"data"`
	NextCursor *string    `json:"nextCursor"`
}

// ListLocations returns one page of locations (limit 0: the server's default).
func (c *Client) ListLocations(ctx context.Context, limit int, cursor string) (*LocationPage, error) {
	v := url.Values{}
	if limit != 0 {
		v.Set("limit", strconv.Itoa(limit))
	}
	if cursor != "" {
		v.Set("cursor", cursor)
	}
	var page LocationPage
	if err := c.do(ctx, "GET", "/api/consumer/v1/locations", v, nil, &page); err != nil {
		return nil, err
	}
	return &page, nil
}

// Locations walks every location with its access points, by name.
func (c *Client) Locations(ctx context.Context) iter.Seq2[Location, error] {
	return walk(func(cursor string) ([]Location, *string, error) {
		page, err := c.ListLocations(ctx, 0, cursor)
		if err != nil {
			return nil, nil, err
		}
		return page.Data, page.NextCursor, nil
	})
}

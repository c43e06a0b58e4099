package client_test

import (
	"context"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/client"
	"github.com/gatehouse/gatehouse/internal/apitest"
)

// TestNewTakesHostOrAPIBase: the server's address and the API's base
// (what the demo prints as $API), with or without a trailing slash,
// reach the same API; the path is never doubled.
func TestNewTakesHostOrAPIBase(t *testing.T) {
	a := apitest.Start(t, generous)
	for _, base := range []string{a.URL, a.URL + "/", a.URL + client.APIPath, a.URL + client.APIPath + "/"} {
		c, err := client.New(base, a.Key, client.WithHTTPClient(a.Client))
		must(t, err)
		if _, err := c.ListLocations(context.Background(), 0, ""); err != nil {
			t.Errorf("New(%q): %v", base, err)
		}
	}
	for _, bad := range []string{"localhost:8080", "ftp://example.com", a.URL + "?x=1", ""} {
		if _, err := client.New(bad, a.Key); err == nil || !strings.Contains(err.Error(), client.APIPath) {
			t.Errorf("New(%q): %v, want an error naming both forms", bad, err)
		}
	}
}

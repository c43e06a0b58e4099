package client_test

import (
	"testing"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/client"
	"github.com/gatehouse/gatehouse/internal/apitest"
)

// serverClient is a game server's client: a new key of the test API's
// organization with the game server's scopes (it syncs, records events
// and grants what players bought).
func serverClient(t *testing.T, a *apitest.API) *client.Client {
	t.Helper()
	c, err := client.New(a.URL, a.NewKey(t, gatehouse.ScopeGameServer, gatehouse.ScopeEventsWrite), client.WithHTTPClient(a.Client))
	must(t, err)
	return c
}

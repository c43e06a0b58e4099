package client_test

import (
	"context"
	"errors"
	"testing"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/client"
	"github.com/gatehouse/gatehouse/internal/apitest"
)

// A studio raises its game servers' key from its own tooling, and gets
// the API's refusal, as an *Error, for the key it acts with.
func TestKeyMethods(t *testing.T) {
	a := apitest.Start(t, generous)
	c := newClient(t, a)
	ctx := context.Background()
	servers := a.NewKey(t, gatehouse.ScopeGameServer, gatehouse.ScopeEventsWrite)
	keys, err := c.ListKeys(ctx)
	must(t, err)
	var game, own client.APIKey
	for _, k := range keys {
		switch k.Prefix {
		case servers[:11]:
			game = k
		case a.Key[:11]:
			own = k
		}
	}
	if game.ID == "" || own.ID == "" || game.RateLimit != nil || game.Status != "active" {
		t.Fatalf("ListKeys = %+v", keys)
	}
	rate := "150/s"
	got, err := c.SetKeyRate(ctx, game.ID, &rate)
	must(t, err)
	if got.RateLimit == nil || *got.RateLimit != rate {
		t.Errorf("SetKeyRate = %+v", got)
	}
	if got, err = c.SetKeyRate(ctx, game.ID, nil); err != nil || got.RateLimit != nil {
		t.Errorf("back to the server's rate: %+v, %v", got, err)
	}
	var apiErr *client.Error
	if _, err := c.SetKeyRate(ctx, own.ID, &rate); !errors.As(err, &apiErr) || apiErr.Status != 403 || apiErr.Code != "key_not_changeable" {
		t.Errorf("raising its own rate: %v", err)
	}
}

package gatehouse_test

import (
	"context"
	"errors"
	"testing"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// TestReachRules: nil is the whole organization and covers every reach;
// a limited reach covers its subsets only, never the whole; a list
// asked for collapses repeats and refuses more than MaxReach or a nil
// id; and a limited actor keeps, of its role, only what a location
// narrows: Authorize refuses it, AuthorizeIn lets it through with its
// reach for the permissions a limited role keeps, and User.Can says so.
func TestReachRules(t *testing.T) {
	a, b, c := gatehouse.NewID(), gatehouse.NewID(), gatehouse.NewID()
	ab := gatehouse.Reach{a, b}
	for _, tc := range []struct {
		r, other gatehouse.Reach
		covers   bool
	}{
		{nil, nil, true}, {nil, ab, true}, {ab, nil, false}, {ab, gatehouse.Reach{b}, true},
		{ab, gatehouse.Reach{b, c}, false}, {gatehouse.Reach{}, gatehouse.Reach{}, true}, {gatehouse.Reach{}, nil, false},
	} {
		if got := tc.r.Covers(tc.other); got != tc.covers {
			t.Errorf("%v covers %v: %v", tc.r, tc.other, got)
		}
	}
	if !gatehouse.Reach(nil).Has(c) || ab.Has(c) || !ab.Has(a) || (gatehouse.Reach{}).Has(a) {
		t.Error("Has")
	}
	if r, err := gatehouse.ParseReach("locations", " "+a.String()+", "+a.String()+","+b.String()); err != nil || len(r) != 2 {
		t.Errorf("ParseReach with a repeat and spaces: %v %v", r, err)
	}
	if r, err := gatehouse.ParseReach("locations", ""); err != nil || !r.Whole() {
		t.Errorf("ParseReach of nothing: %v %v, want the whole organization", r, err)
	}
	for _, s := range []string{"HQ", uuid.Nil.String()} {
		if _, err := gatehouse.ParseReach("locations", s); !errors.Is(err, gatehouse.ErrInvalid) {
			t.Errorf("ParseReach(%q): %v", s, err)
		}
	}
	many := make([]uuid.UUID, gatehouse.MaxReach+1)
	for i := range many {
		many[i] = gatehouse.NewID()
	}
	if _, err := gatehouse.CheckReach("locations", many); !errors.Is(err, gatehouse.ErrInvalid) {
		t.Errorf("%d locations: %v", len(many), err)
	}

	org := gatehouse.NewID()
	limited := gatehouse.User{ID: gatehouse.NewID(), OrgID: org, Role: gatehouse.RoleAdmin, Reach: ab}
	ctx := gatehouse.WithActor(context.Background(), limited.Actor())
	if err := gatehouse.Authorize(ctx, org, gatehouse.PermView); !errors.Is(err, gatehouse.ErrOutsideReach) {
		t.Errorf("Authorize of a limited admin: %v", err)
	}
	if r, err := gatehouse.AuthorizeIn(ctx, org, gatehouse.PermIssueCommands); err != nil || len(r) != 2 {
		t.Errorf("AuthorizeIn of a limited admin: %v %v", r, err)
	}
	for _, p := range []gatehouse.Permission{gatehouse.PermManageUsers, gatehouse.PermReadAudit, gatehouse.PermManageWebhooks,
		gatehouse.PermManagePrivacy, gatehouse.PermManageMessaging, gatehouse.PermManageLocations} {
		if _, err := gatehouse.AuthorizeIn(ctx, org, p); !errors.Is(err, gatehouse.ErrOutsideReach) {
			t.Errorf("AuthorizeIn(%s) of a limited admin: %v", p, err)
		}
		if limited.Can(p) {
			t.Errorf("a limited admin is shown %s", p)
		}
	}
	if _, err := gatehouse.AuthorizeIn(gatehouse.WithActor(context.Background(), limited.Actor()), gatehouse.NewID(), gatehouse.PermView); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("another organization: %v", err)
	}
	viewer := gatehouse.User{OrgID: org, Role: gatehouse.RoleViewer, Reach: ab}
	if _, err := gatehouse.AuthorizeIn(gatehouse.WithActor(context.Background(), viewer.Actor()), org, gatehouse.PermIssueCommands); !errors.Is(err, gatehouse.ErrForbidden) {
		t.Errorf("a limited viewer issues commands: %v", err)
	}
	key := gatehouse.WithActor(context.Background(), gatehouse.Actor{Type: gatehouse.ActorKey, Reach: ab})
	if err := gatehouse.RefuseReach(key); !errors.Is(err, gatehouse.ErrOutsideReach) {
		t.Errorf("RefuseReach of a limited key: %v", err)
	}
	if err := gatehouse.RefuseReach(context.Background()); err != nil {
		t.Errorf("RefuseReach of the system: %v", err)
	}
	if err := gatehouse.CheckReachScopes([]gatehouse.Scope{gatehouse.ScopeEventsRead, gatehouse.ScopeGameServer}); !errors.Is(err, gatehouse.ErrInvalid) {
		t.Errorf("a limited key with server: %v", err)
	}
}

package examples_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
)

// demoSnapshot reads the records of the organization org in the database
// dsn, through the store, as "kind id" → its JSON: the organization and
// its settings, locations, access points and their policies, keys,
// users, webhooks, alert rules, messaging keys, the erasure webhook,
// lockdowns, grants, commands and events. What changes by use alone is
// left out: a key's last use, a webhook's delivery position.
func demoSnapshot(t *testing.T, dsn, org string) map[string]string {
	t.Helper()
	orgID, err := uuid.Parse(org)
	if err != nil {
		t.Fatal(err)
	}
	ctx := gatehouse.WithActor(context.Background(), gatehouse.Actor{Type: gatehouse.ActorCLI, Label: "guides test"})
	db, err := app.OpenExisting(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	svc := db.Service(time.Now)
	snap := map[string]string{}
	put := func(kind string, id any, v any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		snap[fmt.Sprintf("%s %v", kind, id)] = string(b)
	}
	check := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}

	o, err := svc.Organization(ctx, orgID)
	check(err)
	put("organization", o.ID, o)
	if e, err := svc.ErasureWebhook(ctx, orgID); err == nil {
		put("erasure webhook", orgID, e)
	} else if !errors.Is(err, gatehouse.ErrNotFound) {
		t.Fatal(err)
	}
	var after *gatehouse.LocationKey
	for {
		page, next, err := svc.ListLocations(ctx, orgID, gatehouse.MaxLimit, after, true)
		check(err)
		for _, l := range page {
			put("location", l.ID, l)
			aps, err := svc.ListAccessPoints(ctx, orgID, l.ID, true)
			check(err)
			for _, ap := range aps {
				put("access point", ap.ID, ap)
				p, err := svc.Policy(ctx, orgID, ap.ID)
				if err != nil && !errors.Is(err, gatehouse.ErrNotFound) {
					t.Fatal(err)
				}
				put("policy of", ap.ID, p)
			}
		}
		if after = next; next == nil {
			break
		}
	}
	keys, err := svc.ListAPIKeys(ctx, orgID)
	check(err)
	for _, k := range keys {
		k.LastUsedAt = nil
		put("key", k.ID, k)
	}
	users, err := svc.ListUsers(ctx, orgID)
	check(err)
	for _, u := range users {
		put("user", u.ID, u)
	}
	hooks, err := svc.ListWebhooks(ctx, orgID)
	check(err)
	for _, w := range hooks {
		put("webhook", w.ID, map[string]any{"url": w.URL, "types": w.Types, "filters": w.Filters, "enabled": w.Enabled})
	}
	rules, err := svc.ListAlertRules(ctx, orgID)
	check(err)
	for _, r := range rules {
		put("alert rule", r.ID, r)
	}
	keysOfUniverses, err := svc.ListMessaging(ctx, orgID)
	check(err)
	for _, m := range keysOfUniverses {
		put("messaging key", m.UniverseID, m)
	}
	snapshotLists(t, ctx, svc, orgID, put)
	return snap
}

// snapshotLists adds the paged records to a snapshot: lockdowns, grants,
// commands and events.
func snapshotLists(t *testing.T, ctx context.Context, svc *service.Service, orgID uuid.UUID, put func(string, any, any)) {
	t.Helper()
	for f := (gatehouse.LockdownFilter{Limit: gatehouse.MaxLimit}); ; {
		page, err := svc.ListLockdowns(ctx, orgID, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range page.Lockdowns {
			put("lockdown", l.ID, l)
		}
		if f.After = page.Next; page.Next == nil {
			break
		}
	}
	for f := (gatehouse.GrantFilter{Limit: gatehouse.MaxLimit}); ; {
		page, err := svc.ListGrants(ctx, orgID, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range page.Grants {
			put("grant", g.ID, g)
		}
		if f.After = page.Next; page.Next == nil {
			break
		}
	}
	for f := (gatehouse.CommandFilter{Limit: gatehouse.MaxLimit}); ; {
		page, err := svc.ListCommands(ctx, orgID, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range page.Commands {
			put("command", c.ID, c)
		}
		if f.After = page.Next; page.Next == nil {
			break
		}
	}
	for f := (gatehouse.EventFilter{Limit: gatehouse.MaxLimit}); ; {
		page, err := svc.ListEvents(ctx, orgID, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Events {
			put("event", e.ID, e)
		}
		if f.After = page.Next; page.Next == nil {
			break
		}
	}
}

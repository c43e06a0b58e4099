// Package demo creates the demo organization: a studio with a few venues,
// doors and staff, and a realistic event log of the last 90 days.
package demo

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
)

// OrgName is the name Seed finds the demo organization by.
const OrgName = "Demo Studio"

// DefaultEvents is how many events a new demo organization gets.
const DefaultEvents = 4000

// venues are the demo's locations, each an experience of its own on the
// platform: its universe is where remote unlocks of its doors go.
var venues = []struct {
	name     string
	universe string
	doors    []string
}{
	{"Headquarters", "5810412963", []string{"Front door", "Staff entrance", "Server room", "Roof access"}},
	{"Downtown Club", "5810413207", []string{"Front door", "VIP area", "Backstage"}},
	{"Harbor Warehouse", "5810413388", []string{"Loading gate", "Side door"}},
	{"Sky Lounge", "5810413521", []string{"Elevator lobby", "VIP area", "Terrace", "Kitchen"}},
}

// Universes are the universes of the demo's venues, which a guide pasted
// after the demo must not claim for places of its own.
func Universes() []string {
	var us []string
	for _, v := range venues {
		us = append(us, v.universe)
	}
	return us
}

var staff = []struct{ email, name string }{
	{"ops@demo.gatehouse.test", "Olivia Park"},
	{"security@demo.gatehouse.test", "Sam Ortiz"},
	{"events@demo.gatehouse.test", "Priya Nair"},
}

// Seed returns the demo organization, creating it with its data on the
// first call; later calls find it by name and add nothing but what a demo
// made by an older version lacks: the universes of its venues and the
// policies of its doors (a door whose policy an operator set keeps it).
// created says which happened. The data is the same for the same now and
// events.
//
// Every door gets its policy through the service, as an operator's would,
// and every generated attempt is decided by the evaluator on that policy
// (see world.attempt), so that the demo's reasons are those its rules give.
func Seed(ctx context.Context, store gatehouse.Store, now time.Time, events int) (gatehouse.Organization, bool, error) {
	// The service that sets the policies runs at PoliciesSince: the doors
	// had their rules before their first attempt, so that an attempt
	// explained at its instant is decided by the version in force then.
	since := PoliciesSince(now)
	svc := service.New(service.Config{Store: store, Now: func() time.Time { return since }})
	orgs, err := store.ListOrganizations(ctx)
	if err != nil {
		return gatehouse.Organization{}, false, err
	}
	for _, o := range orgs {
		if o.Name == OrgName {
			if err := setUniverses(ctx, store, o.ID); err != nil {
				return o, false, err
			}
			return o, false, setMissingPolicies(ctx, store, svc, o.ID, now)
		}
	}
	org, err := store.CreateOrganization(ctx, gatehouse.SystemEntry(gatehouse.AuditOrganizationCreated), OrgName)
	if err != nil {
		return org, false, err
	}
	w, err := newWorld(ctx, store, svc, org.ID, now)
	if err != nil {
		return org, false, err
	}
	rng := rand.New(rand.NewPCG(42, 2026))
	all, err := w.issueCommands(ctx, store, org.ID, w.events(rng, now, events), now)
	if err != nil {
		return org, false, err
	}
	for len(all) > 0 {
		batch := all[:min(len(all), 1000)]
		if _, err := store.IngestEvents(ctx, org.ID, batch); err != nil {
			return org, false, fmt.Errorf("demo events: %w", err)
		}
		all = all[len(batch):]
	}
	return org, true, nil
}

// PoliciesSince is when the demo's doors got their policies for a demo
// made at now: a day before the 90 days its events span.
func PoliciesSince(now time.Time) time.Time { return now.Add(-91 * 24 * time.Hour) }

// setUniverses gives the demo's venues that name no universe their own,
// so that a demo made before universes existed can be unlocked remotely;
// a universe an operator set is kept.
func setUniverses(ctx context.Context, store gatehouse.Store, org uuid.UUID) error {
	locs, _, err := store.ListLocations(ctx, org, len(venues)*10, nil, false, nil)
	if err != nil {
		return err
	}
	for _, l := range locs {
		for _, v := range venues {
			if l.Name != v.name || l.UniverseID != nil {
				continue
			}
			if _, err := store.SetLocationUniverse(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationUniverseSet), org, l.ID, v.universe); err != nil {
				return err
			}
		}
	}
	return nil
}

// setMissingPolicies gives the doors of a demo made before policies
// existed the demo's policies, so that its decisions do not all fail
// closed; a door that has a policy keeps it. (That demo's old events keep
// the reasons they were made with.)
func setMissingPolicies(ctx context.Context, store gatehouse.Store, svc *service.Service, org uuid.UUID, now time.Time) error {
	locs, _, err := store.ListLocations(ctx, org, len(venues)*10, nil, false, nil)
	if err != nil {
		return err
	}
	rules := policies(now, Population())
	none := int64(0)
	for _, l := range locs {
		for _, ap := range l.AccessPoints {
			p, ok := rules[l.Name][ap.Name]
			if !ok {
				continue
			}
			current, err := svc.Policy(ctx, org, ap.ID)
			if err != nil {
				return fmt.Errorf("demo policy of %s, %s: %w", l.Name, ap.Name, err)
			}
			if current != nil {
				continue
			}
			// Version 0: an operator's policy set meanwhile wins.
			if _, err := svc.SetPolicy(ctx, org, ap.ID, p, &none); err != nil && !errors.Is(err, gatehouse.ErrConflict) {
				return fmt.Errorf("demo policy of %s, %s: %w", l.Name, ap.Name, err)
			}
		}
	}
	return nil
}

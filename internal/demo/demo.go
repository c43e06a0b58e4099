// Package demo creates the demo organization: a studio with a few venues,
// doors and staff, and a realistic event log of the last 90 days.
package demo

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/password"
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

var staff = []struct{ email, name string }{
	{"ops@demo.gatehouse.test", "Olivia Park"},
	{"security@demo.gatehouse.test", "Sam Ortiz"},
	{"events@demo.gatehouse.test", "Priya Nair"},
}

// Seed returns the demo organization, creating it with its data on the
// first call; later calls find it by name and add nothing but the
// universes of a demo made before locations had them. created says which
// happened. The data is the same for the same now and events.
func Seed(ctx context.Context, store gatehouse.Store, now time.Time, events int) (gatehouse.Organization, bool, error) {
	orgs, err := store.ListOrganizations(ctx)
	if err != nil {
		return gatehouse.Organization{}, false, err
	}
	for _, o := range orgs {
		if o.Name == OrgName {
			return o, false, setUniverses(ctx, store, o.ID)
		}
	}
	org, err := store.CreateOrganization(ctx, gatehouse.SystemEntry(gatehouse.AuditOrganizationCreated), OrgName)
	if err != nil {
		return org, false, err
	}
	w, err := newWorld(ctx, store, org.ID)
	if err != nil {
		return org, false, err
	}
	rng := rand.New(rand.NewPCG(42, 2026))
	batch := make([]gatehouse.NewEvent, 0, 1000)
	for i := range events {
		batch = append(batch, w.event(rng, now, i))
		if len(batch) == cap(batch) || i == events-1 {
			if _, err := store.IngestEvents(ctx, org.ID, batch); err != nil {
				return org, false, fmt.Errorf("demo events: %w", err)
			}
			batch = batch[:0]
		}
	}
	return org, true, nil
}

// setUniverses gives the demo's venues that name no universe their own,
// so that a demo made before universes existed can be unlocked remotely;
// a universe an operator set is kept.
func setUniverses(ctx context.Context, store gatehouse.Store, org uuid.UUID) error {
	locs, _, err := store.ListLocations(ctx, org, len(venues)*10, nil)
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

// world is the demo organization's places, people and servers.
type world struct {
	doors   []gatehouse.AccessPoint
	users   []uuid.UUID
	players []string
	jobs    []string
	zipf    func() int
	// the last PLAYER unlock, which later granted attempts refer to
	lastPlayerUnlock *gatehouse.NewEvent
}

func newWorld(ctx context.Context, store gatehouse.Store, org uuid.UUID) (*world, error) {
	w := &world{}
	for _, v := range venues {
		loc, err := store.CreateLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationCreated), org, v.name)
		if err != nil {
			return nil, err
		}
		if _, err := store.SetLocationUniverse(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationUniverseSet), org, loc.ID, v.universe); err != nil {
			return nil, err
		}
		for _, d := range v.doors {
			ap, err := store.CreateAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), org, loc.ID, d)
			if err != nil {
				return nil, err
			}
			w.doors = append(w.doors, ap)
		}
	}
	for _, s := range staff {
		// Demo staff cannot sign in until an operator sets a password.
		hash, err := password.Hash(uuid.NewString())
		if err != nil {
			return nil, err
		}
		u, err := store.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: org, Email: s.email, Name: s.name, PasswordHash: hash})
		if err != nil {
			return nil, fmt.Errorf("demo user %s: %w (is it used by another organization?)", s.email, err)
		}
		w.users = append(w.users, u.ID)
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for range 60 {
		w.players = append(w.players, fmt.Sprint(100_000_000+rng.IntN(4_000_000_000)))
	}
	for range 6 {
		w.jobs = append(w.jobs, uuid.Must(uuid.NewRandomFromReader(rngReader{rng})).String())
	}
	z := rand.NewZipf(rand.New(rand.NewPCG(9, 9)), 1.2, 1, uint64(len(w.players)-1))
	w.zipf = func() int { return int(z.Uint64()) }
	return w, nil
}

// event makes the i-th event: spread over 90 days with evening and weekend
// peaks; ~80% granted, ~17% denied, ~3% remote unlocks.
func (w *world) event(rng *rand.Rand, now time.Time, i int) gatehouse.NewEvent {
	at := busyInstant(rng, now)
	ev := gatehouse.NewEvent{ID: gatehouse.NewID(), OccurredAt: gatehouse.Truncate(at), AccessPointID: w.doors[rng.IntN(len(w.doors))].ID}
	player := w.players[w.zipf()]
	job := w.jobs[rng.IntN(len(w.jobs))]
	switch r := rng.Float64(); {
	case r < 0.03:
		w.unlock(rng, &ev, player, job)
	case r < 0.20:
		ev.Type, ev.Allowed = gatehouse.EventAccessDenied, ptr(gatehouse.Denied)
		ev.Reason = ptr([]string{gatehouse.ReasonOutsideSchedule, gatehouse.ReasonOutsideSchedule, gatehouse.ReasonNotOnAllowlist, gatehouse.ReasonAccessPointDisabled}[rng.IntN(4)])
		ev.PlatformUserID, ev.ServerJobID = &player, &job
	default:
		ev.Type, ev.Allowed = gatehouse.EventAccessGranted, ptr(gatehouse.Granted)
		ev.PlatformUserID, ev.ServerJobID = &player, &job
		switch r := rng.Float64(); {
		case r < 0.3:
			ev.Reason = ptr(gatehouse.ReasonSchedule)
		case r < 0.6:
			ev.Reason = ptr(gatehouse.ReasonAllowlist)
		}
		// A player let in by a PLAYER unlock shows the command that did it.
		if u := w.lastPlayerUnlock; u != nil && rng.Float64() < 0.2 {
			ev.AccessPointID, ev.PlatformUserID = u.AccessPointID, u.PlatformUserID
			ev.OccurredAt = gatehouse.Truncate(minTime(now, u.OccurredAt.Add(time.Duration(30+rng.IntN(600))*time.Second)))
			ev.Command = &gatehouse.NewCommand{ID: u.Command.ID, Status: gatehouse.CommandExecuted, Scope: gatehouse.ScopePlayer,
				PlatformUserID: u.PlatformUserID, IssuedAt: u.Command.IssuedAt}
			w.lastPlayerUnlock = nil
		}
	}
	return ev
}

func (w *world) unlock(rng *rand.Rand, ev *gatehouse.NewEvent, player, job string) {
	scope := gatehouse.CommandScopes[rng.IntN(3)]
	ev.Type, ev.Scope = gatehouse.EventRemoteUnlock, &scope
	ev.RequestedBy = &w.users[rng.IntN(len(w.users))]
	switch scope {
	case gatehouse.ScopeServer:
		ev.ServerJobID = &job
	case gatehouse.ScopePlayer:
		ev.PlatformUserID = &player
	}
	ev.Command = &gatehouse.NewCommand{ID: gatehouse.NewID(), Scope: scope, ServerJobID: ev.ServerJobID,
		PlatformUserID: ev.PlatformUserID, IssuedAt: ev.OccurredAt,
		Status: gatehouse.CommandStatuses[rng.IntN(len(gatehouse.CommandStatuses))]}
	if scope == gatehouse.ScopePlayer {
		ev.Command.Status = gatehouse.CommandDelivered
		w.lastPlayerUnlock = ev
	}
}

// busyInstant picks a time in the last 90 days, weighted towards evenings
// and weekends, when game venues fill up.
func busyInstant(rng *rand.Rand, now time.Time) time.Time {
	for {
		at := now.Add(-time.Duration(rng.Float64() * float64(90*24*time.Hour)))
		hour := float64(at.Hour()) + float64(at.Minute())/60
		weight := 0.25 + math.Exp(-math.Pow(hour-20, 2)/8) // peak at 20:00
		if d := at.Weekday(); d == time.Saturday || d == time.Sunday {
			weight *= 1.6
		}
		if rng.Float64()*2 < weight {
			return at
		}
	}
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func ptr[T any](v T) *T { return &v }

// rngReader draws bytes from a seeded generator, for deterministic UUIDs.
type rngReader struct{ rng *rand.Rand }

func (r rngReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r.rng.UintN(256))
	}
	return len(p), nil
}

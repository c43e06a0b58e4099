package demo

// The demo's world: its doors with their compiled policies, its players,
// and the attempts and unlocks generated from them.

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/password"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
)

// world is the demo organization's places, people and servers.
type world struct {
	doors []door
	users []uuid.UUID
	// players are Population(); pick draws an index of it, the first
	// ones most often.
	players []Player
	jobs    []string
	pick    func() int
}

// door is an access point of the demo with its policy compiled once, for
// every attempt at it, and the remote unlocks issued for it.
type door struct {
	gatehouse.AccessPoint
	universe string // its venue's
	policy   *gatehouse.CompiledPolicy
	unlocks  []*unlock
}

// door returns the world's door of id.
func (w *world) door(id uuid.UUID) *door {
	for i := range w.doors {
		if w.doors[i].ID == id {
			return &w.doors[i]
		}
	}
	panic("demo: no door " + id.String())
}

// unlock is a remote unlock the demo issued: it opens the door for whom
// its scope covers from its issue for UnlockDuration.
type unlock struct {
	event gatehouse.NewEvent
	gatehouse.ActiveUnlock
	from time.Time
}

// UnlockDuration is how long a demo unlock whose command its server
// executed keeps its door open from the instant it was issued; an unlock
// that failed, expired or was cancelled opens nothing. It is longer than
// the API's default so that a demo of a few thousand events shows players
// passing through an unlock.
const UnlockDuration = 15 * time.Minute

// UnlockOpens reports whether a demo unlock with a command of status s
// opened its door (see UnlockDuration).
func UnlockOpens(s gatehouse.CommandStatus) bool {
	return s == gatehouse.CommandExecuted
}

// pastStatuses are the statuses a demo command ends with, drawn alike:
// every demo command is settled by the time the demo is made, as a
// command of the past is (see issueCommands).
var pastStatuses = []gatehouse.CommandStatus{
	gatehouse.CommandExecuted, gatehouse.CommandExecuted, gatehouse.CommandExecuted,
	gatehouse.CommandFailed, gatehouse.CommandExpired, gatehouse.CommandCancelled,
}

func newWorld(ctx context.Context, store gatehouse.Store, svc *service.Service, org uuid.UUID, now time.Time) (*world, error) {
	w := &world{}
	w.players, w.jobs = population()
	rules := policies(now, w.players)
	none := int64(0)
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
			p, err := svc.SetPolicy(ctx, org, ap.ID, rules[v.name][d], &none)
			if err != nil {
				return nil, fmt.Errorf("demo policy of %s, %s: %w", v.name, d, err)
			}
			compiled, err := p.Compile()
			if err != nil {
				return nil, err
			}
			w.doors = append(w.doors, door{AccessPoint: ap, universe: v.universe, policy: compiled})
		}
	}
	for _, s := range staff {
		// Demo staff cannot sign in until an operator sets a password.
		hash, err := password.Hash(uuid.NewString())
		if err != nil {
			return nil, err
		}
		// The first is the organization's admin (the store makes the
		// first user admin whatever is asked); the others run the
		// doors, and issue the demo's remote unlocks with the admin.
		u, err := store.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: org, Email: s.email, Name: s.name, PasswordHash: hash, Role: gatehouse.RoleOperator, Proven: true}, nil)
		if err != nil {
			return nil, fmt.Errorf("demo user %s: %w (is it used by another organization?)", s.email, err)
		}
		w.users = append(w.users, u.ID)
	}
	z := rand.NewZipf(rand.New(rand.NewPCG(9, 9)), 1.2, 1, uint64(len(w.players)-1))
	w.pick = func() int { return int(z.Uint64()) }
	return w, nil
}

// attempt is an access attempt to generate: a player's try at a door. A
// follow-up is the try of the player a PLAYER unlock was issued for, at
// its door, soon after.
type attempt struct {
	denied   bool // the outcome wanted (see world.attempt)
	followUp *unlock
}

// events makes n events spread over 90 days with evening and weekend
// peaks: ~3% remote unlocks, then attempts of which ~17% are denied. The
// unlocks come first, so that every attempt is decided knowing the
// unlocks active at its instant, whatever order the events are made in.
func (w *world) events(rng *rand.Rand, now time.Time, n int) []gatehouse.NewEvent {
	out := make([]gatehouse.NewEvent, 0, n)
	var attempts []attempt
	var pending *unlock // the last PLAYER unlock, which the next granted attempt follows
	for range n {
		switch r := rng.Float64(); {
		case r < 0.03:
			ev, u := w.unlock(rng, now)
			out = append(out, ev)
			if u.Scope == gatehouse.ScopePlayer {
				pending = u
			}
		case r < 0.20:
			attempts = append(attempts, attempt{denied: true})
		default:
			attempts = append(attempts, attempt{followUp: pending})
			pending = nil
		}
	}
	for _, a := range attempts {
		out = append(out, w.attempt(rng, now, a))
	}
	return out
}

// unlock makes a REMOTE_UNLOCK event at a door and, when its command
// opened the door, remembers the unlock there.
func (w *world) unlock(rng *rand.Rand, now time.Time) (gatehouse.NewEvent, *unlock) {
	at := gatehouse.Truncate(busyInstant(rng, now))
	d := rng.IntN(len(w.doors))
	ev := gatehouse.NewEvent{ID: gatehouse.NewID(), OccurredAt: at, AccessPointID: w.doors[d].ID}
	player := w.players[w.pick()].PlatformUserID
	job := w.jobs[rng.IntN(len(w.jobs))]
	scope := gatehouse.CommandScopes[rng.IntN(3)]
	ev.Type, ev.Scope = gatehouse.EventRemoteUnlock, &scope
	ev.RequestedBy = &w.users[rng.IntN(len(w.users))]
	switch scope {
	case gatehouse.ScopeServer:
		ev.ServerJobID = &job
	case gatehouse.ScopePlayer:
		ev.PlatformUserID = &player
	}
	// The event is the command's: issueCommands issues it with that id.
	ev.Command = &gatehouse.NewCommand{ID: ev.ID, Scope: scope, ServerJobID: ev.ServerJobID,
		PlatformUserID: ev.PlatformUserID, IssuedAt: ev.OccurredAt,
		Status: pastStatuses[rng.IntN(len(pastStatuses))]}
	if scope == gatehouse.ScopePlayer {
		ev.Command.Status = gatehouse.CommandExecuted
	}
	u := &unlock{event: ev, from: at, ActiveUnlock: gatehouse.ActiveUnlock{Scope: scope, Until: gatehouse.Time(at.Add(UnlockDuration))}}
	if ev.ServerJobID != nil {
		u.ServerJobID = *ev.ServerJobID
	}
	if ev.PlatformUserID != nil {
		u.PlatformUserID = *ev.PlatformUserID
	}
	if UnlockOpens(ev.Command.Status) {
		w.doors[d].unlocks = append(w.doors[d].unlocks, u)
	}
	return ev, u
}

// maxTries bounds the draws of an attempt with the outcome wanted; past
// it, the last draw is kept whatever its outcome.
const maxTries = 200

// doorTries is how many draws of an attempt try the same door.
const doorTries = 25

// attempt makes an ACCESS_GRANTED or ACCESS_DENIED event: a player drawn
// from the population tries a door at a busy instant, and the evaluator
// decides on the door's policy, with the unlocks active then. Draws are
// repeated until the outcome is the one wanted, so that the demo keeps its
// mix of grants and denials whatever its policies; the reason is always
// the evaluator's. A follow-up is decided likewise, at its unlock's door
// shortly after the unlock, and shows the unlock's command.
func (w *world) attempt(rng *rand.Rand, now time.Time, a attempt) gatehouse.NewEvent {
	var (
		ev  gatehouse.NewEvent
		dec gatehouse.Decision
	)
	d := 0
	for try := range maxTries {
		// The door is kept for a few draws of instant and player: a door
		// is tried as often as another, however rarely it admits.
		if try%doorTries == 0 {
			d = rng.IntN(len(w.doors))
		}
		at := busyInstant(rng, now)
		p := w.pick()
		if u := a.followUp; u != nil {
			for i := range w.doors {
				if w.doors[i].ID == u.event.AccessPointID {
					d = i
				}
			}
			at = minTime(now, u.from.Add(time.Duration(30+rng.IntN(600))*time.Second))
			for i, pl := range w.players {
				if pl.PlatformUserID == u.PlatformUserID {
					p = i
				}
			}
		}
		job := w.jobs[rng.IntN(len(w.jobs))]
		ev = gatehouse.NewEvent{ID: gatehouse.NewID(), OccurredAt: gatehouse.Truncate(at), AccessPointID: w.doors[d].ID,
			PlatformUserID: &w.players[p].PlatformUserID, ServerJobID: &job}
		dec = w.doors[d].decide(w.players[p], job, ev.OccurredAt)
		if a.followUp != nil || (dec.Allowed == gatehouse.Denied) == a.denied {
			break
		}
	}
	ev.Allowed, ev.Reason = &dec.Allowed, &dec.Reason
	ev.Type = gatehouse.EventAccessGranted
	if dec.Allowed == gatehouse.Denied {
		ev.Type = gatehouse.EventAccessDenied
	}
	// A player let in by a PLAYER unlock shows the command that did it.
	if u := a.followUp; u != nil && dec.Reason == gatehouse.ReasonRemoteUnlock {
		c := *u.event.Command
		c.Status = gatehouse.CommandExecuted
		ev.Command = &c
	}
	return ev
}

// decide is the evaluator's answer for a player at the door at an
// instant, with the unlocks issued at or before it (Decide keeps those
// that have not ended).
func (d *door) decide(p Player, job string, at time.Time) gatehouse.Decision {
	in := gatehouse.DecisionInput{PlatformUserID: p.PlatformUserID, ServerJobID: job, Attributes: p.Attributes}
	var active [4]gatehouse.ActiveUnlock
	in.Unlocks = active[:0]
	for _, u := range d.unlocks {
		if !u.from.After(at) {
			in.Unlocks = append(in.Unlocks, u.ActiveUnlock)
		}
	}
	return gatehouse.Decide(d.policy, in, at)
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

// Package bench is Gatehouse's reproducible benchmark: a deterministic
// synthetic event log (Seed), and a load driver that measures each query
// class over HTTP and, as the ceiling, straight through the store (Run).
package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// SeedConfig shapes a synthetic log.
type SeedConfig struct {
	Events int    // in all
	Orgs   int    // the first holds half the events, the rest share the other half
	Seed   uint64 // same seed, same log
	// Now is the end of the two-year span.
	Now time.Time
}

// Shape of every organization: dozens of locations, hundreds of access points.
const (
	locationsPerOrg = 30
	pointsPerOrg    = 300
	usersPerOrg     = 200_000 // platform users, drawn by a Zipf law
	jobsPerOrg      = 5_000   // server job ids (UUIDs)
	span            = 2 * 365 * 24 * time.Hour
)

var (
	venueWords = []string{"Harbor", "Sky", "Neon", "Castle", "Arena", "Garden", "Station", "Tower", "Vault", "Plaza"}
	doorWords  = []string{"Front door", "VIP area", "Loading gate", "Backstage", "Roof access", "Elevator", "Kitchen", "Staff room", "Lobby", "Terrace"}
	deniedWhy  = []string{gatehouse.ReasonOutsideSchedule, gatehouse.ReasonOutsideSchedule, gatehouse.ReasonNotOnAllowlist, gatehouse.ReasonAccessPointDisabled}
)

// SeededOrg is one organization of a seeded log.
type SeededOrg struct {
	ID     uuid.UUID `json:"id"`
	Name   string    `json:"name"`
	Events int       `json:"events"`
}

// Importer stores one organization's NDJSON stream; the CLI passes its
// event import, so seeding exercises the product's own import path.
type Importer func(ctx context.Context, org uuid.UUID, ndjson io.Reader) error

// Seed creates cfg.Orgs organizations with their places in store and
// streams each one's events through imp.
func Seed(ctx context.Context, store *gatehouse.Service, imp Importer, cfg SeedConfig) ([]SeededOrg, error) {
	if cfg.Orgs < 1 || cfg.Events < 0 {
		return nil, fmt.Errorf("bench seed: need at least one organization and no negative event count")
	}
	var orgs []SeededOrg
	for o := range cfg.Orgs {
		n := cfg.Events / 2
		if cfg.Orgs == 1 {
			n = cfg.Events
		} else if o > 0 {
			n = (cfg.Events - cfg.Events/2) / (cfg.Orgs - 1)
			if o == cfg.Orgs-1 {
				n = cfg.Events - cfg.Events/2 - n*(cfg.Orgs-2)
			}
		}
		org, err := store.CreateOrganization(ctx, fmt.Sprintf("Bench studio %d", o+1))
		if err != nil {
			return nil, err
		}
		points, err := seedPlaces(ctx, store, org.ID)
		if err != nil {
			return nil, err
		}
		pr, pw := io.Pipe()
		gen := newGenerator(cfg, o, points)
		go func() { pw.CloseWithError(gen.write(pw, n)) }()
		if err := imp(ctx, org.ID, pr); err != nil {
			pr.CloseWithError(err)
			return nil, err
		}
		orgs = append(orgs, SeededOrg{ID: org.ID, Name: org.Name, Events: n})
	}
	return orgs, nil
}

func seedPlaces(ctx context.Context, store *gatehouse.Service, org uuid.UUID) ([]uuid.UUID, error) {
	var points []uuid.UUID
	for l := range locationsPerOrg {
		loc, err := store.CreateLocation(ctx, org, fmt.Sprintf("%s %d", venueWords[l%len(venueWords)], l+1))
		if err != nil {
			return nil, err
		}
		for p := range pointsPerOrg / locationsPerOrg {
			ap, err := store.CreateAccessPoint(ctx, org, loc.ID, fmt.Sprintf("%s %d", doorWords[p%len(doorWords)], p+1))
			if err != nil {
				return nil, err
			}
			points = append(points, ap.ID)
		}
	}
	return points, nil
}

// generator writes one organization's events, deterministically.
type generator struct {
	rng    *rand.Rand
	points []uuid.UUID
	users  *rand.Zipf
	jobs   []string
	start  time.Time
}

func newGenerator(cfg SeedConfig, org int, points []uuid.UUID) *generator {
	rng := rand.New(rand.NewPCG(cfg.Seed, uint64(org)))
	g := &generator{rng: rng, points: points, users: rand.NewZipf(rng, 1.1, 1, usersPerOrg-1), start: cfg.Now.Add(-span)}
	for range jobsPerOrg {
		var b [16]byte
		for i := range b {
			b[i] = byte(rng.UintN(256))
		}
		g.jobs = append(g.jobs, uuid.Must(uuid.FromBytes(b[:])).String())
	}
	return g
}

// ingest is the NDJSON shape written for the importer.
type ingest struct {
	ID             string  `json:"id"`
	Type           string  `json:"type"`
	OccurredAt     string  `json:"occurredAt"`
	AccessPointID  string  `json:"accessPointId"`
	Reason         *string `json:"reason,omitempty"`
	PlatformUserID *string `json:"platformUserId,omitempty"`
	ServerJobID    *string `json:"serverJobId,omitempty"`
	Scope          *string `json:"scope,omitempty"`
}

func (g *generator) write(w io.Writer, n int) error {
	enc := json.NewEncoder(w)
	step := span / time.Duration(max(n, 1))
	for i := range n {
		at := g.start.Add(time.Duration(i)*step + time.Duration(g.rng.Int64N(int64(step)+1)))
		user := fmt.Sprint(1_000_000 + g.users.Uint64())
		job := g.jobs[g.rng.IntN(len(g.jobs))]
		ev := ingest{
			ID:            uuidV7At(g.rng, at).String(),
			Type:          string(gatehouse.EventAccessGranted),
			OccurredAt:    gatehouse.FormatTime(at),
			AccessPointID: g.points[g.rng.IntN(len(g.points))].String(),
			ServerJobID:   &job,
		}
		switch r := g.rng.Float64(); {
		case r < 0.01:
			scope := gatehouse.CommandScopes[g.rng.IntN(3)]
			ev.Type, ev.Scope = string(gatehouse.EventRemoteUnlock), (*string)(&scope)
			switch scope {
			case gatehouse.ScopeUniverse:
				ev.ServerJobID = nil
			case gatehouse.ScopePlayer:
				ev.ServerJobID, ev.PlatformUserID = nil, &user
			}
		case r < 0.16:
			ev.Type, ev.Reason, ev.PlatformUserID = string(gatehouse.EventAccessDenied), &deniedWhy[g.rng.IntN(len(deniedWhy))], &user
		default:
			ev.PlatformUserID = &user
		}
		if err := enc.Encode(ev); err != nil {
			return err
		}
	}
	return nil
}

// uuidV7At is a UUIDv7 for instant at with random bits from rng, so a seed
// reproduces the same ids.
func uuidV7At(rng *rand.Rand, at time.Time) uuid.UUID {
	var u uuid.UUID
	ms := uint64(at.UnixMilli())
	for i := range 6 {
		u[i] = byte(ms >> (40 - 8*i))
	}
	for i := 6; i < 16; i++ {
		u[i] = byte(rng.UintN(256))
	}
	u[6] = u[6]&0x0f | 0x70 // version 7
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	return u
}

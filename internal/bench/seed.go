// Package bench is Gatehouse's reproducible benchmark: a deterministic
// synthetic event log (Seed), and a load driver that measures each query
// class over HTTP and, as the ceiling, straight through the store (Run).
package bench

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
)

// SeedConfig shapes a synthetic log.
type SeedConfig struct {
	Events int    // in all
	Orgs   int    // the first holds half the events, the rest share the other half
	Seed   uint64 // same seed, same log
	// Now is the end of the two-year span.
	Now time.Time
	// IDs is the kind of event id; the zero value is IDsV7.
	IDs IDVersion
	// Order is the order events are written in; the zero value is
	// OrderTime. OrderShuffled writes the same events, so a seed's two
	// orders are the same log.
	Order Order
	// Jobs is the number of server job ids per organization; zero means
	// 5,000.
	Jobs int
}

// Shape of every organization: dozens of locations, hundreds of access points.
const (
	locationsPerOrg = 30
	pointsPerOrg    = 300
	usersPerOrg     = 200_000 // platform users, drawn by a Zipf law
	jobsPerOrg      = 5_000   // server job ids (UUIDs), unless SeedConfig.Jobs says otherwise
	serversAtOnce   = 4       // servers running at one time: 5,000 over two years live about 14 hours each
	span            = 2 * 365 * 24 * time.Hour
	// benchRetentionDays keeps the span and the events bench run posts
	// a day before it.
	benchRetentionDays = 1000
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
func Seed(ctx context.Context, store *service.Service, imp Importer, cfg SeedConfig) ([]SeededOrg, error) {
	return seed(ctx, store, cfg, func(_ int, org uuid.UUID, gen *generator) (int, error) {
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(gen.write(pw)) }()
		if err := imp(ctx, org, pr); err != nil {
			pr.CloseWithError(err)
			return 0, err
		}
		return gen.n, nil
	})
}

// SeedFile creates the organizations and places Seed would, stores no
// event, and writes the first organization's events to w as NDJSON
// instead: a client's backfill on disk, so that `gatehouse event import`
// can be timed on its own. The other organizations are left without
// events and report none.
func SeedFile(ctx context.Context, store *service.Service, w io.Writer, cfg SeedConfig) ([]SeededOrg, error) {
	return seed(ctx, store, cfg, func(o int, _ uuid.UUID, gen *generator) (int, error) {
		if o > 0 {
			return 0, nil
		}
		return gen.n, gen.write(w)
	})
}

// seed creates the organizations and their places and hands each one's
// generator to emit, which returns how many events it stored or wrote.
func seed(ctx context.Context, store *service.Service, cfg SeedConfig, emit func(o int, org uuid.UUID, gen *generator) (int, error)) ([]SeededOrg, error) {
	if cfg.Orgs < 1 || cfg.Events < 0 || cfg.Jobs < 0 {
		return nil, fmt.Errorf("bench seed: need at least one organization and no negative event or job count")
	}
	if err := cfg.IDs.Set(cfg.IDs.String()); err != nil {
		return nil, fmt.Errorf("bench seed: ids: %w", err)
	}
	if err := cfg.Order.Set(cfg.Order.String()); err != nil {
		return nil, fmt.Errorf("bench seed: order: %w", err)
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
		// The log spans two years, past the default retention: kept
		// whole, so that a server's background work measured against it
		// does not delete it meanwhile.
		if _, err := store.SetRetention(ctx, org.ID, benchRetentionDays); err != nil {
			return nil, err
		}
		points, err := seedPlaces(ctx, store, org.ID)
		if err != nil {
			return nil, err
		}
		stored, err := emit(o, org.ID, newGenerator(cfg, o, points, n))
		if err != nil {
			return nil, err
		}
		orgs = append(orgs, SeededOrg{ID: org.ID, Name: org.Name, Events: stored})
	}
	return orgs, nil
}

func seedPlaces(ctx context.Context, store *service.Service, org uuid.UUID) ([]uuid.UUID, error) {
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

package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// IDVersion is the kind of event id a seeded log carries.
type IDVersion string

const (
	// IDsV7 are UUIDv7 ids whose timestamp is the event's time: in time
	// order they arrive in index order, the kindest case for the store.
	IDsV7 IDVersion = "v7"
	// IDsV4 are random version-4 UUIDs, as clients send them (the Luau
	// SDK calls the platform's HttpService:GenerateGUID): they say nothing
	// of time and land anywhere in an index on the id.
	IDsV4 IDVersion = "v4"
)

// String is the flag's text; the zero value is IDsV7.
func (v IDVersion) String() string {
	if v == "" {
		return string(IDsV7)
	}
	return string(v)
}

// Set accepts "v7" or "v4", so IDVersion serves as a command-line flag.
func (v *IDVersion) Set(s string) error {
	switch IDVersion(s) {
	case IDsV7, IDsV4:
		*v = IDVersion(s)
		return nil
	}
	return fmt.Errorf("want v7 or v4, not %q", s)
}

// Order is the order in which a seeded log's events are written.
type Order string

const (
	// OrderTime writes events in time order, as one server sending as it
	// goes would.
	OrderTime Order = "time"
	// OrderShuffled writes the same events in a random order, as a
	// backfill merged from several servers arrives.
	OrderShuffled Order = "shuffled"
)

// String is the flag's text; the zero value is OrderTime.
func (o Order) String() string {
	if o == "" {
		return string(OrderTime)
	}
	return string(o)
}

// Set accepts "time" or "shuffled", so Order serves as a command-line flag.
func (o *Order) Set(s string) error {
	switch Order(s) {
	case OrderTime, OrderShuffled:
		*o = Order(s)
		return nil
	}
	return fmt.Errorf("want time or shuffled, not %q", s)
}

// generator writes one organization's n events, deterministically.
//
// Event i (its time, id, user, door, outcome) is a function of the seed,
// the organization and i alone: the random source is reseeded for every
// event. That is what lets OrderShuffled write exactly the events of
// OrderTime in another order with memory that does not grow with n: the
// shuffled log is event perm(0), perm(1), … for a keyed permutation of
// [0, n) computed one index at a time, so nothing is buffered.
type generator struct {
	n      int
	src    *rand.PCG
	rng    *rand.Rand
	users  *rand.Zipf
	seed   uint64
	org    uint64
	ids    IDVersion
	order  permutation
	points []uuid.UUID
	jobs   []string
	start  time.Time
	step   time.Duration
}

func newGenerator(cfg SeedConfig, org int, points []uuid.UUID, n int) *generator {
	src := rand.NewPCG(0, 0)
	rng := rand.New(src)
	g := &generator{
		n: n, src: src, rng: rng, users: rand.NewZipf(rng, 1.1, 1, usersPerOrg-1),
		seed: cfg.Seed, org: uint64(org), ids: cfg.IDs, points: points,
		start: cfg.Now.Add(-span), step: span / time.Duration(max(n, 1)),
	}
	if cfg.Order == OrderShuffled {
		g.order = newPermutation(uint64(n), mix64(cfg.Seed^mix64(uint64(org)+1)))
	}
	jobRng := rand.New(rand.NewPCG(cfg.Seed, uint64(org)))
	jobs := cfg.Jobs
	if jobs == 0 {
		jobs = jobsPerOrg
	}
	for range jobs {
		var b [16]byte
		for i := range b {
			b[i] = byte(jobRng.UintN(256))
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

func (g *generator) write(w io.Writer) error {
	enc := json.NewEncoder(w)
	for k := range g.n {
		i := uint64(k)
		if g.order.n > 0 {
			i = g.order.at(i)
		}
		if err := enc.Encode(g.event(i)); err != nil {
			return err
		}
	}
	return nil
}

// event is the log's i-th event in time order.
func (g *generator) event(i uint64) ingest {
	g.src.Seed(g.seed, mix64(g.org<<40+i))
	at := g.start.Add(time.Duration(i)*g.step + time.Duration(g.rng.Int64N(int64(g.step)+1)))
	user := fmt.Sprint(1_000_000 + g.users.Uint64())
	// A server lives hours: the jobs take turns over the span, and event
	// i goes to one of the serversAtOnce whose turn it is, so a job's
	// events sit within serversAtOnce turns of span/jobs each.
	turn := int(i * uint64(len(g.jobs)) / uint64(max(g.n, 1)))
	job := g.jobs[min(turn+g.rng.IntN(serversAtOnce), len(g.jobs)-1)]
	id := uuidV4(g.rng)
	if g.ids != IDsV4 {
		id = uuidV7At(g.rng, at)
	}
	ev := ingest{
		ID:            id.String(),
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
	return ev
}

// uuidV7At is a UUIDv7 for instant at with random bits from rng, so a seed
// reproduces the same ids.
func uuidV7At(rng *rand.Rand, at time.Time) uuid.UUID {
	u := uuidV4(rng)
	ms := uint64(at.UnixMilli())
	for i := range 6 {
		u[i] = byte(ms >> (40 - 8*i))
	}
	u[6] = u[6]&0x0f | 0x70 // version 7
	return u
}

// uuidV4 is a random version-4 UUID drawn from rng, so a seed reproduces
// the same ids.
func uuidV4(rng *rand.Rand) uuid.UUID {
	var u uuid.UUID
	a, b := rng.Uint64(), rng.Uint64()
	for i := range 8 {
		u[i], u[8+i] = byte(a>>(8*i)), byte(b>>(8*i))
	}
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	return u
}

// permutation is a keyed bijection of [0, n) evaluated one index at a
// time in constant memory: a four-round Feistel network on the smallest
// even number of bits that holds n, with cycle walking to stay below n.
// The domain is under 4n, so an index takes fewer than four walks on
// average. A zero permutation (n == 0) stands for the identity.
type permutation struct {
	n    uint64
	half uint
	mask uint64
	keys [4]uint64
}

func newPermutation(n, key uint64) permutation {
	bits := uint(2)
	for bits < 64 && uint64(1)<<bits < n {
		bits += 2
	}
	p := permutation{n: n, half: bits / 2, mask: uint64(1)<<(bits/2) - 1}
	for r := range p.keys {
		key = mix64(key + uint64(r) + 1)
		p.keys[r] = key
	}
	return p
}

func (p permutation) at(i uint64) uint64 {
	for {
		l, r := i>>p.half, i&p.mask
		for _, k := range p.keys {
			l, r = r, l^(mix64(r^k)&p.mask)
		}
		i = l<<p.half | r
		if i < p.n {
			return i
		}
	}
}

// mix64 is SplitMix64's finalizer: nearby inputs give unrelated outputs,
// so consecutive event indices seed unrelated random streams.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

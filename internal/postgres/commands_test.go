package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/postgres"
	"github.com/gatehouse/gatehouse/internal/testenv"
	"github.com/google/uuid"
)

// door is an organization with an access point in universe 42, on a
// migrated database.
type door struct {
	db   *postgres.DB
	dsn  string
	org  gatehouse.Organization
	loc  gatehouse.Location
	ap   gatehouse.AccessPoint
	user gatehouse.User
}

func newDoor(t *testing.T) door {
	t.Helper()
	ctx := context.Background()
	d := door{dsn: testenv.PostgresDSN(t)}
	d.db = open(t, d.dsn)
	must(t, d.db.Migrate(ctx))
	var err error
	d.org, err = d.db.CreateOrganization(ctx, gatehouse.SystemEntry(gatehouse.AuditOrganizationCreated), "Acme")
	must(t, err)
	d.loc, err = d.db.CreateLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationCreated), d.org.ID, "HQ")
	must(t, err)
	d.loc, err = d.db.SetLocationUniverse(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationUniverseSet), d.org.ID, d.loc.ID, "42")
	must(t, err)
	d.ap, err = d.db.CreateAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), d.org.ID, d.loc.ID, "Front door")
	must(t, err)
	d.user, err = d.db.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: d.org.ID, Email: "ops@acme.test", Name: "Olivia", PasswordHash: "h"}, nil)

	must(t, err)
	return d
}

// issue stores a UNIVERSE unlock of the door issued at now, targeting jobs.
func (d door) issue(t testing.TB, now time.Time, jobs ...string) gatehouse.Command {
	t.Helper()
	uid := d.user.ID
	c, err := d.db.CreateCommand(context.Background(), gatehouse.SystemEntry(gatehouse.AuditCommandIssued), gatehouse.IssuedCommand{
		Command: gatehouse.Command{ID: gatehouse.NewID(), OrgID: d.org.ID, Type: gatehouse.CommandUnlock,
			Status: gatehouse.CommandPending, Scope: gatehouse.ScopeUniverse, UniverseID: "42",
			AccessPoint: gatehouse.NamedRef{ID: d.ap.ID, Name: d.ap.Name}, Location: gatehouse.NamedRef{ID: d.loc.ID, Name: d.loc.Name},
			DurationSeconds: 30, IssuedAt: gatehouse.Time(now), ExpiresAt: gatehouse.Time(now.Add(time.Minute)), StatusAt: gatehouse.Time(now)},
		TargetJobIDs: jobs, RequestedByUser: &uid})
	must(t, err)
	return c
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestConcurrentSweepsMoveEachCommandOnce: four instances sweep the same
// due commands at once; each command is expired by exactly one.
func TestConcurrentSweepsMoveEachCommandOnce(t *testing.T) {
	d := newDoor(t)
	ctx := context.Background()
	issued := time.Now().UTC().Add(-time.Hour)
	const n = 300
	ids := make([]uuid.UUID, n)
	for i := range ids {
		ids[i] = d.issue(t, issued).ID
	}
	sweepers := []*postgres.DB{d.db, open(t, d.dsn), open(t, d.dsn), open(t, d.dsn)}
	counts := make([]int, len(sweepers))
	var wg sync.WaitGroup
	for i, s := range sweepers {
		wg.Go(func() {
			var err error
			counts[i], err = s.SweepCommands(ctx, time.Now())
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	total := 0
	for _, c := range counts {
		total += c
	}
	if total != n {
		t.Errorf("the sweeps expired %v commands, %d in all; want %d", counts, total, n)
	}
	for _, id := range ids {
		c, err := d.db.FindCommand(ctx, d.org.ID, id)
		must(t, err)
		if c.Status != gatehouse.CommandExpired {
			t.Fatalf("command %s is %s after the sweeps", id, c.Status)
		}
	}
}

// TestConcurrentTakesAndAcks: many servers take and acknowledge the same
// unlocks at once, acknowledging in random orders. None deadlocks or
// fails; each command starts once (every server is given the startedAt
// it keeps) and settles EXECUTED on every target's answer.
func TestConcurrentTakesAndAcks(t *testing.T) {
	d := newDoor(t)
	ctx := context.Background()
	const servers, commands = 12, 8
	jobs := make([]string, servers)
	for i := range jobs {
		jobs[i] = fmt.Sprintf("job-%02d", i)
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	for _, job := range jobs {
		must(t, d.db.Heartbeat(ctx, d.org.ID, gatehouse.GameServer{JobID: job, UniverseID: "42", Players: []string{}, SeenAt: now, StartedAt: now}, gatehouse.OrgServerCaps))
	}
	ids := make([]uuid.UUID, commands)
	for i := range ids {
		ids[i] = d.issue(t, now, jobs...).ID
	}
	taken := make([][]gatehouse.Command, servers)
	var wg sync.WaitGroup
	for i, job := range jobs {
		wg.Go(func() {
			at := now.Add(time.Duration(i) * time.Millisecond)
			cmds, _, err := d.db.TakeCommands(ctx, d.org.ID, job, "42", 0, at)
			if err != nil {
				t.Errorf("%s takes: %v", job, err)
				return
			}
			taken[i] = cmds
			acks := make([]gatehouse.Ack, len(cmds))
			for k, c := range cmds {
				acks[k] = gatehouse.Ack{CommandID: c.ID, Result: gatehouse.AckExecuted}
			}
			rand.Shuffle(len(acks), func(a, b int) { acks[a], acks[b] = acks[b], acks[a] })
			rejected, err := d.db.AckCommands(ctx, d.org.ID, job, acks, at)
			if err != nil || len(rejected) > 0 {
				t.Errorf("%s acks: %v rejected, %v", job, rejected, err)
			}
		})
	}
	wg.Wait()
	for _, id := range ids {
		c, err := d.db.FindCommand(ctx, d.org.ID, id)
		must(t, err)
		if c.Status != gatehouse.CommandExecuted || c.Targets.Executed != servers || c.StartedAt == nil {
			t.Errorf("command %s: %s %+v started %v", id, c.Status, c.Targets, c.StartedAt)
			continue
		}
		for i, cmds := range taken {
			for _, got := range cmds {
				if got.ID == id && (got.StartedAt == nil || *got.StartedAt != *c.StartedAt) {
					t.Errorf("%s was given startedAt %v, the command keeps %v", jobs[i], got.StartedAt, *c.StartedAt)
				}
			}
		}
	}
	for i, cmds := range taken {
		if len(cmds) != commands {
			t.Errorf("%s took %d commands, want %d", jobs[i], len(cmds), commands)
		}
	}
}

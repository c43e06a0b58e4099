package move_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/move"
	"github.com/gatehouse/gatehouse/internal/testenv"
	"github.com/google/go-cmp/cmp"
)

// TestMoveOrganizations moves the organizations of a SQLite installation
// one at a time (--org), each with its users and nothing of the other:
//   - into an empty database, one after the other: the first takes the
//     source's service secret, the second finds it there; both keep
//     their keys, so every read and every feed cursor handed out before
//     reads the same after, and their common operator, proven in both
//     in the source, stays so (not an invitation); moving one again, or the whole installation
//     now, is refused and changes nothing;
//   - into a database in use, whose organization holds rows with the
//     keys the moved rows have and a proven user with a moved user's
//     email: the moved keys are shifted past the target's, the secrets
//     sealed again under the target's own secret (and open), that user
//     arrives as an invitation, the organization's reads answer the same
//     (but for cursors, which the target's secret signs), and its feed
//     from the start gives the same events in the same order.
func TestMoveOrganizations(t *testing.T) {
	testenv.PostgresURL(t) // skips (fails in CI) without a server, before the source is built
	ctx := context.Background()
	src := newSource(t, 300)
	now := src.clock.Now()
	views := make([]view, len(src.orgs))
	bare := make([]view, len(src.orgs))
	feeds := make([][]feedPage, len(src.orgs))
	for i, r := range src.orgs {
		views[i], bare[i] = src.read(t, r, now, true), src.read(t, r, now, false)
		feeds[i] = src.feed(t, r, "")
	}
	src.srv.Close()
	must(t, src.db.Close())
	moveOrg := func(dsn string, r orgRecords) *move.Report {
		t.Helper()
		rep, err := app.Move(ctx, move.Options{From: src.path, To: dsn, Org: r.org.ID, Now: src.clock.Now})
		must(t, err)
		if len(rep.Organizations) != 1 || rep.Organizations[0].ID != r.org.ID {
			t.Errorf("moved %v, want %s alone", rep.Organizations, r.org.ID)
		}
		checkCounts(t, rep)
		must(t, move.Compare(ctx, src.path, dsn, rep))
		return rep
	}

	t.Run("into an empty database", func(t *testing.T) {
		dsn := testenv.PostgresDSN(t)
		for i, want := range []string{move.SecretTaken, move.SecretSame} {
			rep := moveOrg(dsn, src.orgs[1-i])
			if rep.Secret != want || len(rep.Renumbered) != 0 || len(rep.Invitations) != 0 {
				t.Errorf("move %d: secret %s, renumbered %v, invitations %v", i+1, rep.Secret, rep.Renumbered, rep.Invitations)
			}
		}
		_, dst, sent := openTarget(t, dsn, src.clock)
		for i, r := range src.orgs {
			checkReadsAsBefore(t, dst, r, now, views[i], feeds[i])
			checkWorks(t, dst, r, sent, true)
		}
		if _, _, u, err := dst.app.Service.SignIn(ctx, opsEmail, password+"4243", "192.0.2.0/24"); err != nil || u.OrgID != src.orgs[1].org.ID {
			t.Errorf("the operator of both, proven in both, signs in to the second: %v, %v", u.OrgID, err)
		}
		for _, o := range []move.Options{{Org: src.orgs[0].org.ID}, {}} {
			o.From, o.To, o.Now = src.path, dsn, src.clock.Now
			_, err := app.Move(ctx, o)
			if err == nil || !strings.Contains(err.Error(), "in the target already") && !strings.Contains(err.Error(), "holds 2 organizations") {
				t.Errorf("moving %v again: %v", o.Org, err)
			}
		}
	})

	t.Run("into a database in use", func(t *testing.T) {
		dsn := testenv.PostgresDSN(t)
		r := src.orgs[1]
		_, dst, sent := openTarget(t, dsn, src.clock)
		svc := dst.app.Service
		own, err := svc.CreateOrganization(ctx, "Target Studio")
		must(t, err)
		loc, err := svc.CreateLocation(ctx, own.ID, "Home")
		must(t, err)
		door, err := svc.CreateAccessPoint(ctx, own.ID, loc.ID, "Door")
		must(t, err)
		evs := make([]gatehouse.NewEvent, 2000) // past every key of the source's events
		for i := range evs {
			evs[i] = gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessGranted, OccurredAt: now, AccessPointID: door.ID, Allowed: ptr(gatehouse.Granted)}
		}
		_, err = svc.IngestEvents(ctx, own.ID, evs)
		must(t, err)
		_, err = svc.CreateUser(ctx, gatehouse.NewUser{OrgID: own.ID, Email: r.admin, Password: password + "!", Role: gatehouse.RoleAdmin})
		must(t, err)
		_, _, _, err = svc.SignIn(ctx, r.admin, password+"!", "192.0.2.0/24")
		must(t, err)
		_, _, err = svc.CreateWebhook(ctx, own.ID, gatehouse.WebhookInput{URL: ptr("http://127.0.0.1:9/own"), Types: []gatehouse.WebhookType{gatehouse.WebhookEventCreated}})
		must(t, err)

		rep := moveOrg(dsn, r)
		if rep.Secret != move.SecretResealed || rep.Resealed != 6 {
			t.Errorf("secret %s, %d sealed again; want resealed, 6 (webhook, alert rule, Open Cloud key, erasure token and secret, a TOTP secret)", rep.Secret, rep.Resealed)
		}
		if !slices.Contains(rep.Renumbered, "events.seq +2000") || !slices.Equal(rep.Invitations, []string{r.admin}) {
			t.Errorf("renumbered %v, invitations %v", rep.Renumbered, rep.Invitations)
		}
		if diff := cmp.Diff(bare[1], dst.read(t, r, now, false)); diff != "" {
			t.Errorf("%s reads otherwise after the move (-before +after):\n%s", r.org.Name, diff)
		}
		if status, _ := dst.get(t, r.key, "/api/consumer/v1/events/feed?after="+feeds[1][0].body["nextCursor"].(string)); status != http.StatusBadRequest {
			t.Errorf("a cursor of the source's secret: %d, want 400", status)
		}
		if want, got := feedIDs(feeds[1]), feedIDs(dst.feed(t, r, "")); !slices.Equal(want, got) {
			t.Errorf("the feed from the start gives %d events, want the source's %d in its order", len(got), len(want))
		}
		checkWorks(t, dst, r, sent, false) // an invitation now: see below
		_, _, u, err := svc.SignIn(ctx, r.admin, password+"!", "192.0.2.0/24")
		if err != nil || u.OrgID != own.ID {
			t.Fatalf("%s signs in to %v, %v; want the target's own organization, the moved user being an invitation", r.admin, u.OrgID, err)
		}
		// The moved user waits as an invitation of the usual lifetime:
		// accepted through the provider, or through a new link.
		moved, err := svc.ListUsers(ctx, r.org.ID)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(moved, func(m gatehouse.User) bool { return m.Email == r.admin })
		if i < 0 || moved[i].Proven || !moved[i].ProvenAt.IsZero() || moved[i].InvitedUntil.IsZero() {
			t.Errorf("the moved %s: %+v, want an invitation with a live link", r.admin, moved)
		}
	})
}

// feedIDs are the ids of the events of a feed's pages, in order.
func feedIDs(pages []feedPage) []string {
	var ids []string
	for _, p := range pages {
		for _, e := range p.body["data"].([]any) {
			ids = append(ids, e.(map[string]any)["id"].(string))
		}
	}
	return ids
}

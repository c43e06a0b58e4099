package move_test

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/move"
	"github.com/gatehouse/gatehouse/internal/testenv"
	"github.com/google/go-cmp/cmp"
)

// TestMoveWholeInstallation moves a SQLite installation of two
// organizations holding every kind of record into an empty PostgreSQL
// database, and checks that nothing was lost and everything works there:
//   - every table of both schemas is accounted for, and every copied,
//     derived or rebuilt table holds as many rows in the target as in
//     the source;
//   - each copied row is in the target exactly as the move converted it
//     (move.Compare);
//   - every read of each organization's key (events and their search,
//     the audit log, commands, webhooks and their deliveries, alerts,
//     grants, lockdowns, policies, keys, erasure records, and insights
//     by every grouping) answers the same, the key authenticating;
//   - each feed cursor handed out before the move reads the same page
//     after it, and the feed goes on with the events stored after; a
//     cursor of the first, unsealed form reads from the feed's start;
//   - users sign in with their passwords, and every sealed secret opens;
//   - new rows (events, webhooks, commands) take keys past the moved ones.
func TestMoveWholeInstallation(t *testing.T) {
	dsn := testenv.PostgresDSN(t)
	ctx := context.Background()
	src := newSource(t, 1500)
	now := src.clock.Now()
	views := make([]view, len(src.orgs))
	feeds := make([][]feedPage, len(src.orgs))
	for i, r := range src.orgs {
		views[i] = src.read(t, r, now, true)
		feeds[i] = src.feed(t, r, "")
	}
	src.srv.Close()
	must(t, src.db.Close())

	rep, err := app.Move(ctx, move.Options{From: src.path, To: dsn, Now: src.clock.Now})
	must(t, err)
	if rep.Secret != move.SecretTaken || len(rep.Organizations) != 2 || len(rep.Renumbered) != 0 || len(rep.Invitations) != 0 {
		t.Errorf("report: secret %s, organizations %v, renumbered %v, invitations %v", rep.Secret, rep.Organizations, rep.Renumbered, rep.Invitations)
	}
	checkCounts(t, rep)
	must(t, move.Compare(ctx, src.path, dsn, rep))

	_, dst, sent := openTarget(t, dsn, src.clock)
	for i, r := range src.orgs {
		checkReadsAsBefore(t, dst, r, now, views[i], feeds[i])
		// A cursor of the first, unsealed form reads from the feed's
		// start: whatever position it names, it compares none moved.
		legacy := base64.RawURLEncoding.EncodeToString([]byte("f1.0.1000"))
		if status, body := dst.get(t, r.key, "/api/consumer/v1/events/feed?limit=50&after="+legacy); status != http.StatusOK ||
			!cmp.Equal(feeds[i][0].body["data"], body["data"]) {
			t.Errorf("%s: a cursor of the first form reads %d, not the feed from its start", r.org.Name, status)
		}
		last := feeds[i][len(feeds[i])-1]
		src.clock.Advance(time.Minute)
		dst.newEvents(t, r, src.clock, 3)
		// The feed shows a transaction's events once every older one in
		// the cluster has ended: other databases' too.
		var got []any
		for deadline := time.Now().Add(20 * time.Second); len(got) < 3 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			got = dst.feed(t, r, last.body["nextCursor"].(string))[0].body["data"].([]any)
		}
		if len(got) != 3 {
			t.Errorf("%s: the feed after its last cursor gives %d events, want the 3 stored since", r.org.Name, len(got))
		}
		checkWorks(t, dst, r, sent, true)
	}
}

// checkReadsAsBefore: the organization of r reads on dst, through the
// API, what it read in the source at now (view), and each of its feed
// cursors handed out before the move reads the same page.
func checkReadsAsBefore(t *testing.T, dst *served, r orgRecords, now time.Time, view view, feed []feedPage) {
	t.Helper()
	if diff := cmp.Diff(view, dst.read(t, r, now, true)); diff != "" {
		t.Errorf("%s reads otherwise after the move (-before +after):\n%s", r.org.Name, diff)
	}
	for _, p := range feed {
		status, body := dst.get(t, r.key, "/api/consumer/v1/events/feed?limit=50&after="+p.after)
		strip(body, true)
		if status != http.StatusOK || !cmp.Equal(p.body, body) {
			t.Errorf("%s: the feed after %q reads otherwise after the move: %d %s", r.org.Name, p.after, status, cmp.Diff(p.body, body))
		}
	}
}

// checkCounts: every table the move writes holds as many rows of the
// moved organizations in the target as in the source, and every table of
// both schemas is in the report.
func checkCounts(t *testing.T, rep *move.Report) {
	t.Helper()
	var names []string
	for _, c := range rep.Tables {
		names = append(names, c.Table)
		if c.Treatment == move.Skipped {
			continue
		}
		if c.Target == nil || c.Source != nil && *c.Source != *c.Target {
			t.Errorf("%s (%s): %v rows in the source, %v in the target", c.Table, c.Treatment, deref(c.Source), deref(c.Target))
		}
	}
	for _, want := range move.Tables() {
		if !slices.Contains(names, want.Name) {
			t.Errorf("the report leaves out %s", want.Name)
		}
	}
	for _, c := range rep.Tables {
		if c.Treatment == move.Copied && (c.Source == nil || *c.Source == 0) && c.Table != "settings" {
			t.Errorf("the source holds no %s: the test makes every kind of record", c.Table)
		}
	}
}

func deref(n *int64) any {
	if n == nil {
		return nil
	}
	return *n
}

// checkWorks: on the target, r's admin signs in with the password
// (unless signIn is false), the organization's sealed secrets open, and
// new records take new keys.
func checkWorks(t *testing.T, dst *served, r orgRecords, sent *sends, signIn bool) {
	t.Helper()
	ctx := context.Background()
	svc := dst.app.Service
	if _, token, u, err := svc.SignIn(ctx, r.admin, password, "192.0.2.0/24"); signIn && (err != nil || token == "" || u.OrgID != r.org.ID) {
		t.Errorf("%s signs in after the move: %v", r.admin, err)
	}
	_, _, _, err := svc.SignIn(ctx, r.viewer, password, "192.0.2.0/24")
	var step *gatehouse.SecondFactorError
	if !errors.As(err, &step) {
		t.Errorf("%s, who has a second factor, signs in after the move with the password alone: %v", r.viewer, err)
	} else if _, _, _, err := svc.SignInSecondFactor(ctx, step.Token, r.recovery, "192.0.2.0/24"); err != nil {
		t.Errorf("a recovery code of %s after the move: %v", r.viewer, err)
	}
	if key, err := svc.OpenMessagingKey(ctx, r.org.ID, r.universe); err != nil || key != r.messaging {
		t.Errorf("the Open Cloud key after the move: %q, %v", key, err)
	}
	if er, err := svc.ErasureWebhook(ctx, r.org.ID); err != nil || er.Token != r.erasure.Token || er.Secret != r.erasure.Secret {
		t.Errorf("the erasure webhook after the move: %+v, %v", er, err)
	}
	as := gatehouse.WithActor(ctx, gatehouse.Actor{Type: gatehouse.ActorCLI, Label: "test"})
	if _, _, err := svc.RotateWebhookSecret(as, r.org.ID, r.webhook, nil); err != nil {
		t.Errorf("the webhook's secret does not open after the move: %v", err)
	}
	before := len(sent.headers)
	_, err = svc.TestAlertRule(as, r.org.ID, r.alertRule)
	must(t, err)
	for more := true; more; {
		more, err = svc.DeliverAlerts(ctx, "test")
		must(t, err)
	}
	if len(sent.headers) != before+1 || sent.headers[before].Get("webhook-signature") == "" {
		t.Errorf("the alert rule's test after the move sent %v", sent.headers[before:])
	}
	if _, _, err := svc.CreateWebhook(as, r.org.ID, gatehouse.WebhookInput{URL: ptr("http://127.0.0.1:9/new"),
		Types: []gatehouse.WebhookType{gatehouse.WebhookEventCreated}}); err != nil {
		t.Errorf("a webhook after the move: %v", err)
	}
	status, body := dst.post(t, r.key, "/api/consumer/v1/commands", `{"accessPointId":"`+r.door.ID.String()+`","scope":"UNIVERSE","durationSeconds":30}`)
	if status != http.StatusCreated {
		t.Errorf("a command after the move: %d %s", status, body)
	}
}

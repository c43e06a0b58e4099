package move_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/apitest"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/demo"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/gatehouse/gatehouse/internal/sqlite"
	"github.com/google/uuid"
	"github.com/pquerna/otp/totp"
)

// start is the instant the tests' clocks begin at.
var start = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// password is every test user's.
const password = "correct horse battery staple"

// served is a real Gatehouse on a store, as a test reaches it: the
// service, and the API behind a server that checks every exchange
// against the OpenAPI document.
type served struct {
	app *app.App
	url string
	srv *httptest.Server
}

// sends counts what the webhook and alert sends of a server received.
type sends struct {
	mu      sync.Mutex
	headers []http.Header
}

func (s *sends) add(h http.Header) {
	s.mu.Lock()
	s.headers = append(s.headers, h.Clone())
	s.mu.Unlock()
}

// serve builds Gatehouse on db with clock and serves its API.
func serve(t *testing.T, db *app.DB, clock *apitest.Clock, got *sends) *served {
	t.Helper()
	built, err := app.New(context.Background(), app.Settings{DB: db, Now: clock.Now, WebhooksAllowPrivate: true,
		ReadSlots: service.NewReadSlots(100, time.Second),
		// The clock stands still: a bucket never refills.
		KeyLimit: ratelimit.Limit{Rate: gatehouse.Rate{Count: 1_000_000, Per: time.Second}, Burst: 1_000_000},
		Webhooks: func(w *service.WebhookSettings) {
			w.Send = func(_ context.Context, _ string, h http.Header, _ []byte) (int, []byte, error) {
				got.add(h)
				return 200, []byte("ok"), nil
			}
		},
		Alerts: func(a *service.AlertSettings) {
			a.Send = func(_ context.Context, _ string, h http.Header, _ []byte) (int, http.Header, []byte, error) {
				got.add(h)
				return 204, nil, nil, nil
			}
		}})
	must(t, err)
	srv := httptest.NewServer(apitest.Document(t).Handler(t, built.Handler))
	t.Cleanup(srv.Close)
	return &served{app: built, url: srv.URL, srv: srv}
}

// orgRecords are what a test made in an organization, to use after the
// move: its raw key, its users' emails, its sealed secrets in the clear.
type orgRecords struct {
	org        gatehouse.Organization
	key        string
	admin      string // the first user's email: proven, signed in
	opsLink    string // the second organization's invitation link of the operator of both
	door       gatehouse.AccessPoint
	universe   string
	webhook    uuid.UUID
	webhookKey string
	alertRule  uuid.UUID
	alertKey   string
	messaging  string // the Open Cloud key
	erasure    gatehouse.ErasureIntegration
	// viewer enrolled a second factor; recovery is one of its codes.
	viewer, recovery string
}

// source is a SQLite installation with the demo organization and a
// second one, each holding every kind of record.
type source struct {
	path  string
	db    *sqlite.DB
	clock *apitest.Clock
	sent  *sends
	*served
	orgs   []orgRecords
	events int // ingested by ingest
}

// newSource builds the installation. The demo organization gets the
// demo's events, policies and commands; both get keys, users (one signed
// in), a policy's history, player names, a server's sync with a command
// delivered and answered, a webhook with deliveries, an alert rule with
// alerts, a grant, a lockdown released, an Open Cloud key, the erasure
// webhook with an erasure through it and one by the operator, and a
// retention. The operator of both, one person, is proven in both.
func newSource(t *testing.T, events int) *source {
	t.Helper()
	ctx := context.Background()
	s := &source{path: filepath.Join(t.TempDir(), "gatehouse.db"), clock: apitest.NewClock(start), sent: &sends{}}
	var err error
	s.db, err = sqlite.Open(ctx, s.path)
	must(t, err)
	t.Cleanup(func() { s.db.Close() })
	s.db.Now = s.clock.Now
	must(t, s.db.Migrate(ctx))
	demoOrg, _, err := demo.Seed(ctx, s.db, start, events)
	must(t, err)
	s.served = serve(t, app.Use(s.db), s.clock, s.sent)
	svc := s.app.Service
	second, err := svc.CreateOrganization(ctx, "Second Studio")
	must(t, err)
	for i, org := range []gatehouse.Organization{demoOrg, second} {
		s.orgs = append(s.orgs, s.records(t, org, strconv.Itoa(4242+i)))
	}
	// The operator of both is one person, who joins the second through
	// the link it made (records keeps it).
	_, _, _, err = svc.Join(ctx, s.orgs[1].opsLink, password+"4243") // another password in each
	must(t, err)
	return s
}

// opsEmail is the operator of both organizations, whose password is
// another in each.
const opsEmail = "ops@studio.test"

// records makes every kind of record in org, its door in universe.
func (s *source) records(t *testing.T, org gatehouse.Organization, universe string) orgRecords {
	t.Helper()
	ctx := context.Background()
	svc := s.app.Service
	tick := func() { s.clock.Advance(time.Second) }
	r := orgRecords{org: org, universe: universe}
	k, raw, err := svc.CreateAPIKey(ctx, gatehouse.NewAPIKey{OrgID: org.ID, Name: "everything", Scopes: gatehouse.Scopes})
	must(t, err)
	r.key = raw
	as := gatehouse.WithActor(ctx, gatehouse.Actor{Type: gatehouse.ActorKey, ID: k.ID, Label: k.Prefix, OrgID: org.ID, Scopes: gatehouse.Scopes})
	// Users: an admin who signs in (proven, a session), an operator whose
	// email the other organization has too, a viewer.
	r.admin = "admin-" + universe + "@studio.test"
	r.viewer = "viewer-" + universe + "@studio.test"
	for _, u := range []gatehouse.NewUser{{Email: r.admin, Role: gatehouse.RoleAdmin, Password: password},
		{Email: opsEmail, Role: gatehouse.RoleOperator, Password: password + universe},
		{Email: r.viewer, Role: gatehouse.RoleViewer, Password: password},
		{Email: "new-" + universe + "@studio.test", Role: gatehouse.RoleViewer}} { // invited, not joined yet
		u.OrgID, u.Name = org.ID, "User of "+universe
		create := svc.CreateUser
		if u.Password == "" || u.Email == opsEmail && universe != "4242" { // the second organization invites the operator of the first
			create = func(ctx context.Context, u gatehouse.NewUser) (gatehouse.User, error) {
				made, link, err := svc.InviteUser(ctx, u)
				if u.Email == opsEmail {
					r.opsLink = link
				}
				return made, err
			}
		}
		made, err := create(ctx, u)
		must(t, err)
		if u.Email == r.viewer { // a second factor: its secret sealed, its recovery codes keyed by it
			viewer := gatehouse.WithActor(ctx, gatehouse.Actor{Type: gatehouse.ActorUser, ID: made.ID, Label: made.Email, OrgID: org.ID, Role: made.Role})
			e, err := svc.BeginEnrolment(viewer)
			must(t, err)
			code, err := totp.GenerateCode(e.Secret, s.clock.Now())
			must(t, err)
			_, _, codes, err := svc.EnrolSecondFactor(viewer, e.Pending, code)
			must(t, err)
			r.recovery = codes[0]
		}
	}
	_, _, _, err = svc.SignIn(ctx, r.admin, password, "192.0.2.0/24")
	must(t, err)

	loc, err := svc.CreateLocation(ctx, org.ID, "Moved "+universe)
	must(t, err)
	_, err = svc.SetLocationUniverse(ctx, org.ID, loc.ID, universe)
	must(t, err)
	r.door, err = svc.CreateAccessPoint(ctx, org.ID, loc.ID, "Moved door")
	must(t, err)
	// A retired door: its archive moves with it (archived_at).
	retired, err := svc.CreateAccessPoint(ctx, org.ID, loc.ID, "Retired door")
	must(t, err)
	_, err = svc.ArchiveAccessPoint(ctx, org.ID, retired.ID)
	must(t, err)
	for _, mode := range []gatehouse.PolicyMode{gatehouse.ModeLocked, gatehouse.ModeOpen} { // a history of two versions
		_, err = svc.SetPolicy(as, org.ID, r.door.ID, gatehouse.Policy{Mode: mode, FailMode: gatehouse.FailClosed}, nil)
		must(t, err)
		tick()
	}
	hook, secret, err := svc.CreateWebhook(as, org.ID, gatehouse.WebhookInput{URL: ptr("http://127.0.0.1:9/hook"),
		Types: []gatehouse.WebhookType{gatehouse.WebhookEventCreated, gatehouse.WebhookCommandUpdated, gatehouse.WebhookLockdownUpdated}})
	must(t, err)
	r.webhook, r.webhookKey = hook.ID, secret
	rule, secret, err := svc.CreateAlertRule(as, org.ID, gatehouse.AlertRuleInput{Name: ptr("Denials"),
		Condition:   &gatehouse.AlertCondition{Kind: gatehouse.AlertThreshold, Threshold: 3, WindowSeconds: 3600, GroupBy: "none"},
		Destination: &gatehouse.AlertDestination{Format: gatehouse.AlertStandardWebhook, URL: "http://127.0.0.1:9/alerts"}})
	must(t, err)
	r.alertRule, r.alertKey = rule.ID, secret
	tick()

	// Events of ten players with their names, on two servers.
	s.ingest(t, org.ID, r.door.ID, 40)
	zero := 0
	job := "job-" + universe
	sync := func(acks ...gatehouse.Ack) gatehouse.SyncResult {
		res, err := svc.Sync(as, org.ID, gatehouse.SyncRequest{ServerJobID: job, UniverseID: universe, Players: []string{"1000", "1001"}, Acks: acks, WaitSeconds: &zero})
		must(t, err)
		return res
	}
	sync()
	c, _, err := svc.IssueCommand(as, org.ID, gatehouse.CommandRequest{AccessPointID: r.door.ID, Scope: gatehouse.ScopeUniverse, DurationSeconds: 30}, "idem-"+universe)
	must(t, err)
	tick()
	if res := sync(); len(res.Commands) != 1 {
		t.Fatalf("the sync took %+v", res.Commands)
	}
	tick()
	sync(gatehouse.Ack{CommandID: c.ID, Result: gatehouse.AckExecuted})
	_, _, err = svc.CreateGrant(as, org.ID, gatehouse.GrantRequest{PlatformUserID: "1003", AccessPointIDs: []uuid.UUID{r.door.ID},
		Until: ptr(gatehouse.Time(s.clock.Now().Add(2 * time.Hour))), Note: ptr("guest")})
	must(t, err)
	l, err := svc.StartLockdown(as, org.ID, gatehouse.LockdownRequest{Scope: gatehouse.LockdownLocation, LocationID: &loc.ID, Reason: "drill"})
	must(t, err)
	tick()
	_, err = svc.ReleaseLockdown(as, org.ID, l.ID)
	must(t, err)
	r.messaging = "ocx-" + universe + "-abcdefghijklmnopqrstuvwxyz0123456789"
	_, err = svc.SetMessaging(as, org.ID, universe, r.messaging)
	must(t, err)
	_, err = svc.SetRetention(as, org.ID, 500)
	must(t, err)
	tick()

	// What the background loops do: deliveries of the webhook, alerts.
	s.ingest(t, org.ID, r.door.ID, 10)
	for more := true; more; {
		more, err = svc.DeliverWebhooks(ctx, "test")
		must(t, err)
	}
	_, err = svc.TestAlertRule(as, org.ID, rule.ID)
	must(t, err)
	for more := true; more; {
		more, err = svc.EvaluateAlertRules(ctx, "test")
		must(t, err)
	}
	for more := true; more; {
		more, err = svc.DeliverAlerts(ctx, "test")
		must(t, err)
	}
	tick()

	// Erasure: through the platform's webhook (the player whose event
	// is the newest of the file: SQLite keeps its position in its
	// internal organization), and by the operator.
	r.erasure, err = svc.SetUpErasureWebhook(as, org.ID)
	must(t, err)
	s.ingest(t, org.ID, r.door.ID, 1)
	body := fmt.Sprintf(`{"NotificationId":"n-%s","EventType":"RightToErasureRequest","EventPayload":{"UserId":1009}}`, universe)
	_, err = svc.ReceiveErasure(ctx, r.erasure.Token, signPlatform(r.erasure.Secret, s.clock.Now(), body), []byte(body))
	must(t, err)
	_, err = svc.ErasePlatformUser(as, org.ID, "1008")
	must(t, err)
	tick()
	return r
}

// ingest stores n events at door: players 1000 to 1009 with their
// names, granted and denied, on two servers, over the last days; the
// last one is player 1009's.
func (s *source) ingest(t *testing.T, org, door uuid.UUID, n int) {
	t.Helper()
	evs := make([]gatehouse.NewEvent, n)
	for i := range evs {
		player := strconv.Itoa(1000 + (s.events+n-1-i)%10)
		if i == n-1 {
			player = "1009"
		}
		ev := gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessGranted, AccessPointID: door,
			OccurredAt: s.clock.Now().Add(-time.Duration(s.events%200) * 37 * time.Minute), PlatformUserID: &player,
			PlatformUserName: ptr("Player_" + player), ServerJobID: ptr(fmt.Sprintf("job-%d", s.events%2)), Allowed: ptr(gatehouse.Granted)}
		if s.events%3 == 0 {
			ev.Type, ev.Allowed, ev.Reason = gatehouse.EventAccessDenied, ptr(gatehouse.Denied), ptr(gatehouse.ReasonNotOnAllowlist)
		}
		evs[i] = ev
		s.events++
	}
	_, err := s.app.Service.IngestEvents(context.Background(), org, evs)
	must(t, err)
}

func ptr[T any](v T) *T { return &v }

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// signPlatform signs a right-to-erasure notification as the platform
// does: t=<unix seconds>,v1=<base64 HMAC-SHA256 over "<t>.<body>">.
func signPlatform(secret string, at time.Time, body string) string {
	ts := strconv.FormatInt(at.Unix(), 10)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts + "." + body))
	return "t=" + ts + ",v1=" + base64.StdEncoding.EncodeToString(m.Sum(nil))
}

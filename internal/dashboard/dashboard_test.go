package dashboard_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/password"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/gatehouse/gatehouse/internal/sqlite"
	"github.com/gatehouse/gatehouse/internal/testenv"
	"github.com/prometheus/client_golang/prometheus"
)

type site struct {
	t       *testing.T
	url     string
	store   *sqlite.DB
	handler http.Handler       // the API with the dashboard mounted, as served at url
	svc     *service.Service   // the service behind both, for what no page does (a game server's sync)
	logs    *testenv.LogBuffer // every log line of the API and the dashboard
	metrics *prometheus.Registry
	faults  *faultyStore // the dashboard's store: store, with failures on demand
	now     time.Time
	clock   func() time.Time // s.now, unless the test runs in real time
}

type tenant struct {
	org     gatehouse.Organization
	email   string
	ap      gatehouse.AccessPoint
	loc     gatehouse.Location
	denied  gatehouse.NewEvent
	granted gatehouse.NewEvent
}

const testPassword = "correct horse battery staple"

func newSite(t *testing.T) *site { return newSiteWithClock(t, nil) }

// newSiteWithClock serves the dashboard and the API on one fresh store;
// clock nil means the settable s.now.
func newSiteWithClock(t *testing.T, clock func() time.Time) *site {
	t.Helper()
	return newSiteWith(t, clock, nil)
}

// newSiteWith is newSiteWithClock with edit applied to the settings last.
func newSiteWith(t *testing.T, clock func() time.Time, edit func(*app.Settings)) *site {
	t.Helper()
	return newSiteAt(t, clock, func(_ string, s *app.Settings) {
		if edit != nil {
			edit(s)
		}
	})
}

// newSiteAt is newSiteWith whose edit knows the site's URL: settings
// that name the server's own address (--public-url) need it.
func newSiteAt(t *testing.T, clock func() time.Time, edit func(url string, s *app.Settings)) *site {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "dash.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	s := &site{t: t, store: db, now: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC), clock: clock}
	if clock == nil {
		clock = func() time.Time { return s.now }
	}
	db.Now = clock
	s.logs, s.metrics, s.faults = new(testenv.LogBuffer), prometheus.NewRegistry(), &faultyStore{DB: db}
	settings := app.Settings{ // as gatehouse serve mounts the dashboard
		DB:              app.Use(s.faults),
		KeyLimit:        ratelimit.Limit{Rate: gatehouse.Rate{Count: 100, Per: time.Second}, Burst: 100},
		FailedAuthLimit: ratelimit.Limit{Rate: gatehouse.Rate{Count: 100, Per: time.Second}, Burst: 100},
		SignInLimit:     ratelimit.Limit{Rate: gatehouse.Rate{Count: 5, Per: time.Minute}, Burst: 5},
		ReadSlots:       service.NewReadSlots(1000, time.Minute),
		Logger:          slog.New(slog.NewJSONHandler(s.logs, nil)),
		Registry:        s.metrics,
		Now:             clock,
	}
	srv := httptest.NewUnstartedServer(nil)
	s.url = "http://" + srv.Listener.Addr().String()
	edit(s.url, &settings)
	built, err := app.New(ctx, settings)
	if err != nil {
		srv.Close()
		t.Fatal(err)
	}
	h := built.Handler
	s.handler, s.svc = h, built.Service
	srv.Config.Handler = h
	srv.Start()
	t.Cleanup(srv.Close)
	return s
}

func (s *site) tenant(name string) tenant {
	s.t.Helper()
	ctx := context.Background()
	var tn tenant
	var err error
	must := func(err error) {
		if err != nil {
			s.t.Fatal(err)
		}
	}
	tn.org, err = s.store.CreateOrganization(ctx, gatehouse.SystemEntry(gatehouse.AuditOrganizationCreated), name)
	must(err)
	tn.loc, err = s.store.CreateLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationCreated), tn.org.ID, name+" HQ")
	must(err)
	tn.ap, err = s.store.CreateAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), tn.org.ID, tn.loc.ID, name+" door")
	must(err)
	hash, err := password.Hash(testPassword)
	must(err)
	tn.email = strings.ToLower(name) + "@example.test"
	_, err = s.store.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: tn.org.ID, Email: tn.email, Name: name + " Ops", PasswordHash: hash, Proven: true}, nil)
	must(err)
	denied, granted := gatehouse.Denied, gatehouse.Granted
	tn.denied = gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessDenied, Allowed: &denied, Reason: ptr("OUTSIDE_SCHEDULE"),
		OccurredAt: s.now.Add(-time.Hour), AccessPointID: tn.ap.ID, PlatformUserID: ptr("111")}
	tn.granted = gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessGranted, Allowed: &granted,
		OccurredAt: s.now.Add(-2 * time.Hour), AccessPointID: tn.ap.ID, PlatformUserID: ptr("222")}
	_, err = s.store.IngestEvents(ctx, tn.org.ID, []gatehouse.NewEvent{tn.denied, tn.granted})
	must(err)
	return tn
}

func ptr[T any](v T) *T { return &v }

// browser is a client with cookies that does not follow redirects, so
// each step can be checked.
type browser struct {
	t      *testing.T
	site   *site
	client *http.Client
	seen   []string // every response body, in order
}

func (s *site) browser() *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: s.t, site: s, client: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

type answer struct {
	status int
	header http.Header
	body   string
}

func (b *browser) do(method, path string, form url.Values, header ...string) answer {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, _ := http.NewRequest(method, b.site.url+path, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	b.seen = append(b.seen, string(data))
	return answer{res.StatusCode, res.Header, string(data)}
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func csrfOf(t *testing.T, page string) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF token in %.300s", page)
	}
	return m[1]
}

// signedIn is a browser signed in as the tenant's user.
func (s *site) signedIn(tn tenant) *browser {
	s.t.Helper()
	b := s.browser()
	if r := b.signIn(tn.email, testPassword); r.status != http.StatusSeeOther {
		s.t.Fatalf("sign in as %s: %d", tn.email, r.status)
	}
	return b
}

// signIn submits the sign-in form as a user would.
func (b *browser) signIn(email, pw string) answer {
	b.t.Helper()
	form := b.do("GET", "/dashboard/login", nil)
	return b.do("POST", "/dashboard/login", url.Values{"csrf": {csrfOf(b.t, form.body)}, "email": {email}, "password": {pw}})
}

func TestSignInEventLogAndSignOut(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	b := s.browser()

	if r := b.do("GET", "/dashboard/events", nil); r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/dashboard/login") {
		t.Fatalf("signed out: %d %s", r.status, r.header.Get("Location"))
	}
	r := b.signIn(acme.email, testPassword)
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/dashboard/events" {
		t.Fatalf("sign in: %d %s", r.status, r.body)
	}
	cookie := strings.Join(r.header.Values("Set-Cookie"), "\n")
	for _, want := range []string{"gatehouse_session=", "HttpOnly", "SameSite=Lax", "Path=/dashboard"} {
		if !strings.Contains(cookie, want) {
			t.Errorf("session cookie %q lacks %s", cookie, want)
		}
	}

	log := b.do("GET", "/dashboard/events", nil)
	if log.status != 200 || !strings.Contains(log.body, acme.denied.ID.String()) || !strings.Contains(log.body, acme.granted.ID.String()) {
		t.Fatalf("event log: %d %.500s", log.status, log.body)
	}
	denied := b.do("GET", "/dashboard/events?allowed=denied&reason=OUTSIDE_SCHEDULE", nil)
	if !strings.Contains(denied.body, acme.denied.ID.String()) || strings.Contains(denied.body, acme.granted.ID.String()) {
		t.Error("the allowed and reason filters do not filter")
	}
	search := b.do("GET", "/dashboard/events?q=222", nil)
	if strings.Contains(search.body, acme.denied.ID.String()) || !strings.Contains(search.body, acme.granted.ID.String()) {
		t.Error("q does not search")
	}
	bad := b.do("GET", "/dashboard/events?limit=0&allowed=maybe", nil)
	if bad.status != 400 || !strings.Contains(bad.body, "must be granted or denied") {
		t.Errorf("bad filters: %d", bad.status)
	}
	older := b.do("GET", "/dashboard/events?limit=1", nil)
	next := regexp.MustCompile(`href="(/dashboard/events\?[^"]*cursor=[^"]+)" rel="next"`).FindStringSubmatch(older.body)
	if next == nil || !strings.Contains(older.body, acme.denied.ID.String()) {
		t.Fatalf("first page of 1: no older link or wrong event")
	}
	page2 := b.do("GET", strings.ReplaceAll(next[1], "&amp;", "&"), nil)
	if !strings.Contains(page2.body, acme.granted.ID.String()) || strings.Contains(page2.body, `rel="next"`) {
		t.Errorf("older page: %.300s", page2.body)
	}
	detail := b.do("GET", "/dashboard/events/"+acme.denied.ID.String(), nil)
	if detail.status != 200 || !strings.Contains(detail.body, "OUTSIDE_SCHEDULE") || !strings.Contains(detail.body, acme.ap.Name) {
		t.Errorf("detail: %d", detail.status)
	}
	// An attempt opens the door's decision test with its player, server
	// and instant filled in.
	test := regexp.MustCompile(`href="(/dashboard/access-points/[^"]+/policy/test\?[^"]+)">Test this attempt`).FindStringSubmatch(detail.body)
	if test == nil {
		t.Errorf("the attempt's page links to no decision test: %.3000s", detail.body)
	} else if tested := b.do("GET", strings.ReplaceAll(test[1], "&amp;", "&"), nil); tested.status != 200 ||
		!strings.Contains(tested.body, `value="`+*acme.denied.PlatformUserID+`"`) {
		t.Errorf("the decision test of the attempt: %d %.3000s", tested.status, tested.body)
	}
	for _, h := range []string{"Content-Security-Policy", "X-Content-Type-Options"} {
		if detail.header.Get(h) == "" {
			t.Errorf("no %s", h)
		}
	}

	csrf := csrfOf(t, log.body)
	if r := b.do("POST", "/dashboard/logout", url.Values{"csrf": {csrf}}); r.status != http.StatusSeeOther {
		t.Fatalf("sign out: %d", r.status)
	}
	if r := b.do("GET", "/dashboard/events", nil); r.status != http.StatusSeeOther {
		t.Errorf("after sign-out the log answers %d", r.status)
	}
}

func TestAUserSeesOnlyTheirOrganization(t *testing.T) {
	s := newSite(t)
	acme, rival := s.tenant("Acme"), s.tenant("Rival")
	b := s.signedIn(acme)
	log := b.do("GET", "/dashboard/events", nil)
	for _, id := range []string{rival.denied.ID.String(), rival.granted.ID.String(), rival.ap.ID.String(), rival.loc.ID.String(), "Rival"} {
		if strings.Contains(log.body, id) {
			t.Errorf("the log shows the other organization's %s", id)
		}
	}
	for _, path := range []string{
		"/dashboard/events/" + rival.denied.ID.String(),
		"/dashboard/events?accessPointId=" + rival.ap.ID.String(),
		"/dashboard/events?locationId=" + rival.loc.ID.String(),
		"/dashboard/events?q=" + rival.denied.ID.String(),
	} {
		r := b.do("GET", path, nil)
		if strings.Contains(r.body, rival.denied.ID.String()) && !strings.Contains(path, "q=") || strings.Contains(r.body, "Rival door") {
			t.Errorf("%s shows the other organization's data", path)
		}
		if strings.HasPrefix(path, "/dashboard/events/") && r.status != http.StatusNotFound {
			t.Errorf("%s: %d, want 404 as for an unknown id", path, r.status)
		}
	}
}

func TestFormsNeedTheirTokenAndTheirOrigin(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	b := s.browser()

	// Sign-in without the form's token.
	if r := b.do("POST", "/dashboard/login", url.Values{"email": {acme.email}, "password": {testPassword}}); r.status != http.StatusForbidden {
		t.Errorf("sign-in without a token: %d", r.status)
	}
	b.signIn(acme.email, testPassword)
	log := b.do("GET", "/dashboard/events", nil)
	csrf := csrfOf(t, log.body)
	for name, form := range map[string]url.Values{"no token": {}, "a wrong token": {"csrf": {csrf + "x"}}} {
		if r := b.do("POST", "/dashboard/logout", form); r.status != http.StatusForbidden {
			t.Errorf("sign-out with %s: %d", name, r.status)
		}
	}
	// A cross-origin post, even with a valid token, is refused.
	if r := b.do("POST", "/dashboard/logout", url.Values{"csrf": {csrf}}, "Sec-Fetch-Site", "cross-site"); r.status != http.StatusForbidden {
		t.Errorf("cross-site post: %d", r.status)
	}
	if r := b.do("POST", "/dashboard/logout", url.Values{"csrf": {csrf}}, "Origin", "https://evil.example"); r.status != http.StatusForbidden {
		t.Errorf("cross-origin post: %d", r.status)
	}
	if r := b.do("GET", "/dashboard/events", nil); r.status != 200 {
		t.Errorf("the refused posts signed the user out: %d", r.status)
	}
}

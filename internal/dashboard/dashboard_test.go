package dashboard_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/auth"
	"github.com/gatehouse/gatehouse/internal/password"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
	"github.com/gatehouse/gatehouse/internal/sqlite"
	"github.com/gatehouse/gatehouse/internal/testenv"
	"github.com/prometheus/client_golang/prometheus"
)

type site struct {
	t       *testing.T
	url     string
	store   *sqlite.DB
	handler http.Handler       // the API with the dashboard mounted, as served at url
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
		ReadSlots:       gatehouse.NewReadSlots(1000, time.Minute),
		Logger:          slog.New(slog.NewJSONHandler(s.logs, nil)),
		Registry:        s.metrics,
		Now:             clock,
	}
	if edit != nil {
		edit(&settings)
	}
	built, err := app.New(ctx, settings)
	if err != nil {
		t.Fatal(err)
	}
	h := built.Handler
	s.handler = h
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	s.url = srv.URL
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
	_, err = s.store.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: tn.org.ID, Email: tn.email, Name: name + " Ops", PasswordHash: hash})
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

func TestFailedSignInsAreLimited(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	b := s.browser()
	for i := range 5 {
		if r := b.signIn(acme.email, "wrong"); r.status != http.StatusUnauthorized || !strings.Contains(r.body, "do not match") {
			t.Fatalf("attempt %d: %d", i, r.status)
		}
	}
	r := b.signIn(acme.email, testPassword)
	if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" {
		t.Fatalf("the right password after 5 failures: %d", r.status)
	}
	if r := b.signIn("nobody@example.test", "x"); r.status != http.StatusTooManyRequests {
		t.Errorf("the same address, another email: %d", r.status)
	}
	s.now = s.now.Add(2 * time.Minute)
	if r := b.signIn(acme.email, testPassword); r.status != http.StatusSeeOther {
		t.Errorf("after waiting: %d", r.status)
	}
}

// TestConcurrentSignInsAreLimitedBeforeHashing: 40 wrong passwords sent
// at once cost at most the limit's burst of 64 MiB hashes; the rest are
// 429 with Retry-After. A check made before the hash and paid for after it
// let every one of them through to the hash.
func TestConcurrentSignInsAreLimitedBeforeHashing(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	const n = 40
	forms := make([]*browser, n)
	tokens := make([]string, n)
	for i := range forms {
		forms[i] = s.browser()
		tokens[i] = csrfOf(t, forms[i].do("GET", "/dashboard/login", nil).body)
	}
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	for i, b := range forms {
		wg.Go(func() {
			form := url.Values{"csrf": {tokens[i]}, "email": {acme.email}, "password": {"wrong"}}
			req, _ := http.NewRequest("POST", s.url+"/dashboard/login", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			res, err := b.client.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			res.Body.Close()
			if res.StatusCode == http.StatusTooManyRequests && res.Header.Get("Retry-After") == "" {
				t.Error("429 without Retry-After")
			}
			mu.Lock()
			statuses[res.StatusCode]++
			mu.Unlock()
		})
	}
	wg.Wait()
	if statuses[http.StatusUnauthorized] != 5 || statuses[http.StatusTooManyRequests] != n-5 {
		t.Fatalf("%d wrong passwords at once: %v; want the burst of 5 checked (401) and the rest 429", n, statuses)
	}
}

// TestSuccessfulSignInsCostNoFailures: a failure is spent before the hash
// and given back when the password is right.
func TestSuccessfulSignInsCostNoFailures(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	b := s.browser()
	for range 4 {
		b.signIn(acme.email, "wrong")
	}
	for i := range 3 {
		if r := s.browser().signIn(acme.email, testPassword); r.status != http.StatusSeeOther {
			t.Fatalf("right password %d after 4 failures: %d", i, r.status)
		}
	}
	if r := b.signIn(acme.email, "wrong"); r.status != http.StatusUnauthorized {
		t.Fatalf("fifth failure: %d, want 401: the successes were charged", r.status)
	}
	if r := b.signIn(acme.email, "wrong"); r.status != http.StatusTooManyRequests {
		t.Fatalf("sixth failure: %d, want 429", r.status)
	}
}

func TestSessionsExpire(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	b := s.signedIn(acme)
	s.now = s.now.Add(gatehouse.SessionLifetime + time.Minute)
	if r := b.do("GET", "/dashboard/events", nil); r.status != http.StatusSeeOther {
		t.Errorf("an expired session: %d", r.status)
	}
}

func TestExportStreamsTheFilter(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	ctx := context.Background()
	// More than one page of 500, and a name a spreadsheet would run.
	ap, _ := s.store.CreateAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), acme.org.ID, acme.loc.ID, "=HYPERLINK(\"http://evil\")")
	var events []gatehouse.NewEvent
	for i := range 1200 {
		denied := gatehouse.Denied
		events = append(events, gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessDenied, Allowed: &denied,
			OccurredAt: s.now.Add(-time.Duration(i) * time.Second), AccessPointID: ap.ID})
	}
	if _, err := s.store.IngestEvents(ctx, acme.org.ID, events); err != nil {
		t.Fatal(err)
	}
	b := s.signedIn(acme)
	log := b.do("GET", "/dashboard/events?allowed=denied&limit=25", nil)
	link := regexp.MustCompile(`href="(/dashboard/events/export\.csv\?[^"]+)"`).FindStringSubmatch(log.body)
	if link == nil {
		t.Fatal("no CSV link")
	}
	r := b.do("GET", strings.ReplaceAll(link[1], "&amp;", "&"), nil)
	rows, err := csv.NewReader(strings.NewReader(r.body)).ReadAll()
	if r.status != 200 || err != nil || !strings.HasPrefix(r.header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("csv: %d %v %v", r.status, err, r.header)
	}
	if len(rows) != 1+1201 { // the header, the 1,200 events and the tenant's own denied event
		t.Fatalf("%d rows, want 1,202", len(rows))
	}
	if rows[1][8] != `'=HYPERLINK("http://evil")` {
		t.Errorf("a formula-like name is exported as %q", rows[1][8])
	}
	nd := b.do("GET", "/dashboard/events/export.ndjson?allowed=granted", nil)
	lines := strings.Split(strings.TrimSpace(nd.body), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], acme.granted.ID.String()) {
		t.Errorf("ndjson: %q", nd.body)
	}
}

func TestAPIKeysCreateUseRevoke(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	b := s.signedIn(acme)
	page := b.do("GET", "/dashboard/keys", nil)
	csrf := csrfOf(t, page.body)

	bad := b.do("POST", "/dashboard/keys", url.Values{"csrf": {csrf}, "name": {" "}, "expires": {"7"}})
	if bad.status != http.StatusBadRequest || !strings.Contains(bad.body, "choose at least one scope") {
		t.Errorf("a bad form: %d", bad.status)
	}
	posted := b.do("POST", "/dashboard/keys", url.Values{"csrf": {csrf}, "name": {"warehouse"},
		"scope": {"events:read", "locations:read"}, "expires": {"30"}})
	if posted.status != http.StatusSeeOther || posted.header.Get("Location") != "/dashboard/keys" {
		t.Fatalf("create: %d to %q, want 303 to the keys page", posted.status, posted.header.Get("Location"))
	}
	if sc := posted.header.Get("Set-Cookie"); !strings.Contains(sc, "HttpOnly") || !strings.Contains(sc, "Max-Age=60") ||
		!strings.Contains(sc, "Path=/dashboard/keys") {
		t.Errorf("the new key's cookie is not a short-lived HttpOnly one: %s", sc)
	}
	created := b.do("GET", "/dashboard/keys", nil)
	raw := regexp.MustCompile(`gk_[0-9A-Za-z]{38}`).FindString(created.body)
	if created.status != http.StatusOK || raw == "" {
		t.Fatalf("the page after creating: %d, no key", created.status)
	}
	if reloaded := b.do("GET", "/dashboard/keys", nil); strings.Contains(reloaded.body, raw) ||
		strings.Count(reloaded.body, "<td>warehouse</td>") != 1 {
		t.Errorf("a reload shows the key again or another key")
	}
	if !strings.Contains(created.body, "only time") {
		t.Error("no warning that the key is shown once")
	}

	api := func(key string) int {
		req, _ := http.NewRequest("GET", s.url+"/api/consumer/v1/events", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if got := api(raw); got != 200 {
		t.Fatalf("the new key against the API: %d", got)
	}

	list := b.do("GET", "/dashboard/keys", nil)
	if !strings.Contains(list.body, raw[:11]+"…") || !strings.Contains(list.body, "events:read, locations:read") {
		t.Errorf("the list lacks the key's prefix or scopes")
	}
	id := regexp.MustCompile(`/dashboard/keys/([0-9a-f-]{36})/revoke`).FindStringSubmatch(list.body)
	if id == nil {
		t.Fatal("no revoke link")
	}
	confirm := b.do("GET", "/dashboard/keys/"+id[1]+"/revoke", nil)
	if confirm.status != 200 || !strings.Contains(confirm.body, "cannot be undone") {
		t.Fatalf("confirmation: %d", confirm.status)
	}
	if r := b.do("POST", "/dashboard/keys/"+id[1]+"/revoke", url.Values{"csrf": {csrf}}); r.status != http.StatusSeeOther {
		t.Fatalf("revoke: %d", r.status)
	}
	s.now = s.now.Add(auth.CacheTTL + time.Millisecond)
	if got := api(raw); got != http.StatusUnauthorized {
		t.Errorf("the revoked key against the API: %d", got)
	}
	if after := b.do("GET", "/dashboard/keys", nil); !strings.Contains(after.body, "revoked") {
		t.Error("the list does not show the key revoked")
	}

	shown := 0
	for _, body := range b.seen {
		shown += strings.Count(body, raw)
	}
	if shown != 1 {
		t.Errorf("the raw key appears %d times across the session's responses, want exactly once", shown)
	}
}

func TestKeysOfAnotherOrganizationAreOutOfReach(t *testing.T) {
	s := newSite(t)
	acme, rival := s.tenant("Acme"), s.tenant("Rival")
	rb := s.browser()
	rb.signIn(rival.email, testPassword)
	rp := rb.do("GET", "/dashboard/keys", nil)
	rb.do("POST", "/dashboard/keys", url.Values{"csrf": {csrfOf(t, rp.body)}, "name": {"rival-key"}, "scope": {"events:read"}})
	keys, _ := s.store.ListAPIKeys(context.Background(), rival.org.ID)
	if len(keys) != 1 {
		t.Fatalf("rival keys: %d", len(keys))
	}
	b := s.signedIn(acme)
	page := b.do("GET", "/dashboard/keys", nil)
	if strings.Contains(page.body, "rival-key") || strings.Contains(page.body, keys[0].Prefix) {
		t.Error("the key list shows another organization's key")
	}
	csrf := csrfOf(t, page.body)
	if r := b.do("GET", "/dashboard/keys/"+keys[0].ID.String()+"/revoke", nil); r.status != http.StatusNotFound {
		t.Errorf("confirming another organization's key: %d", r.status)
	}
	if r := b.do("POST", "/dashboard/keys/"+keys[0].ID.String()+"/revoke", url.Values{"csrf": {csrf}}); r.status != http.StatusNotFound {
		t.Errorf("revoking another organization's key: %d", r.status)
	}
	if keys, _ := s.store.ListAPIKeys(context.Background(), rival.org.ID); keys[0].RevokedAt != nil {
		t.Error("another organization's key was revoked")
	}
}

func TestLocationsCreateRenameAndIsolation(t *testing.T) {
	s := newSite(t)
	acme, rival := s.tenant("Acme"), s.tenant("Rival")
	b := s.signedIn(acme)
	page := b.do("GET", "/dashboard/locations", nil)
	if !strings.Contains(page.body, "Acme HQ") || !strings.Contains(page.body, "Acme door") || strings.Contains(page.body, "Rival") {
		t.Fatalf("locations page: %.300s", page.body)
	}
	csrf := csrfOf(t, page.body)
	if r := b.do("POST", "/dashboard/locations", url.Values{"csrf": {csrf}, "name": {"Nightclub"}}); r.status != http.StatusSeeOther {
		t.Fatalf("create: %d %.300s", r.status, r.body)
	}
	if r := b.do("POST", "/dashboard/locations", url.Values{"csrf": {csrf}, "name": {"  "}}); r.status != http.StatusBadRequest {
		t.Errorf("an empty name: %d", r.status)
	}
	if r := b.do("POST", "/dashboard/locations/"+acme.loc.ID.String()+"/rename", url.Values{"csrf": {csrf}, "name": {"Head office"}}); r.status != http.StatusSeeOther {
		t.Errorf("rename: %d", r.status)
	}
	if r := b.do("POST", "/dashboard/locations/"+acme.loc.ID.String()+"/access-points", url.Values{"csrf": {csrf}, "name": {"Roof"}}); r.status != http.StatusSeeOther {
		t.Errorf("add an access point: %d", r.status)
	}
	after := b.do("GET", "/dashboard/locations", nil)
	for _, want := range []string{"Nightclub", "Head office", "Roof"} {
		if !strings.Contains(after.body, want) {
			t.Errorf("the list lacks %s", want)
		}
	}
	// Another organization's location cannot be renamed or extended.
	for _, path := range []string{"/rename", "/access-points"} {
		r := b.do("POST", "/dashboard/locations/"+rival.loc.ID.String()+path, url.Values{"csrf": {csrf}, "name": {"Taken"}})
		if r.status != http.StatusNotFound && r.status != http.StatusBadRequest {
			t.Errorf("%s on another organization's location: %d", path, r.status)
		}
	}
	locs, _, _ := s.store.ListLocations(context.Background(), rival.org.ID, 10, nil)
	if locs[0].Name != "Rival HQ" || len(locs[0].AccessPoints) != 1 {
		t.Errorf("another organization's location changed: %+v", locs[0])
	}
}

func TestChartCountsTheFilter(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme") // one denied an hour ago, one granted two hours ago
	b := s.signedIn(acme)
	log := b.do("GET", "/dashboard/events?allowed=denied", nil)
	src := regexp.MustCompile(`<img src="(/dashboard/events/chart\.svg\?[^"]*)"`).FindStringSubmatch(log.body)
	if src == nil {
		t.Fatal("no chart on the Event Log")
	}
	r := b.do("GET", strings.ReplaceAll(src[1], "&amp;", "&"), nil)
	if r.status != 200 || r.header.Get("Content-Type") != "image/svg+xml" {
		t.Fatalf("chart: %d %s", r.status, r.header.Get("Content-Type"))
	}
	// Without dateFrom the chart, as the table, starts at the first
	// matching event's day: the denied one an hour ago, so hours of today.
	if !strings.Contains(r.body, "0 granted, 1 denied in all") || !strings.Contains(r.body, "per hour") ||
		!strings.Contains(r.body, "from 2026-11-20T00:00:00.000Z") {
		t.Errorf("the chart does not count the filter over the table's window: %.300s", r.body)
	}
	day := b.do("GET", "/dashboard/events/chart.svg?dateFrom=2026-11-20&dateTo=2026-11-21", nil)
	if !strings.Contains(day.body, "per hour") || !strings.Contains(day.body, "1 granted, 1 denied in all") ||
		!strings.Contains(day.body, "2026-11-20 11:00: 0 granted, 1 denied") {
		t.Errorf("an hourly chart: %.400s", day.body)
	}
}

// TestPagingOlderAndNewer walks seven pages older and all the way back.
func TestPagingOlderAndNewer(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	var events []gatehouse.NewEvent
	for i := range 19 {
		granted := gatehouse.Granted
		events = append(events, gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessGranted, Allowed: &granted,
			OccurredAt: s.now.Add(-time.Duration(i/2) * time.Minute), AccessPointID: acme.ap.ID})
	}
	if _, err := s.store.IngestEvents(context.Background(), acme.org.ID, events); err != nil {
		t.Fatal(err)
	}
	b := s.signedIn(acme)
	link := func(body, rel string) string {
		m := regexp.MustCompile(`href="([^"]+)" rel="` + rel + `"`).FindStringSubmatch(body)
		if m == nil {
			return ""
		}
		return html.UnescapeString(m[1])
	}
	ids := regexp.MustCompile(`/dashboard/events/([0-9a-f-]{36})"`)
	var pages [][]string
	body := b.do("GET", "/dashboard/events?allowed=granted&limit=3", nil).body
	for {
		var page []string
		for _, m := range ids.FindAllStringSubmatch(body, -1) {
			page = append(page, m[1])
		}
		pages = append(pages, page)
		next := link(body, "next")
		if next == "" {
			break
		}
		body = b.do("GET", next, nil).body
	}
	if len(pages) != 7 { // 20 granted events, 3 a page
		t.Fatalf("%d pages", len(pages))
	}
	for i := len(pages) - 2; i >= 0; i-- {
		newer := link(body, "prev")
		if newer == "" {
			t.Fatalf("no Newer link on page %d", i+2)
		}
		body = b.do("GET", newer, nil).body
		var page []string
		for _, m := range ids.FindAllStringSubmatch(body, -1) {
			page = append(page, m[1])
		}
		if strings.Join(page, ",") != strings.Join(pages[i], ",") {
			t.Fatalf("Newer from page %d shows %v, want page %d's %v", i+2, page, i+1, pages[i])
		}
	}
	if link(body, "prev") != "" {
		t.Error("the first page has a Newer link")
	}
}

// TestDashboardAnswersAsTheServiceDoes: the dashboard sits behind the API's
// middleware, so every answer carries X-Request-Id, and an error is the
// service's JSON error for a client that does not ask for HTML.
func TestDashboardAnswersAsTheServiceDoes(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	b := s.signedIn(acme)
	for _, path := range []string{"/dashboard/login", "/dashboard/events", "/dashboard/assets/style.css", "/dashboard/nowhere"} {
		if r := b.do("GET", path, nil); r.header.Get("X-Request-Id") == "" {
			t.Errorf("%s: no X-Request-Id", path)
		}
	}
	r := b.do("GET", "/dashboard/events/"+gatehouse.NewID().String(), nil)
	var body struct{ Error, Code, RequestID string }
	if r.status != 404 || json.Unmarshal([]byte(r.body), &body) != nil || body.Code != "not_found" || body.RequestID != r.header.Get("X-Request-Id") {
		t.Errorf("an unknown event for a non-browser client: %d %s", r.status, r.body)
	}
	page := b.do("GET", "/dashboard/events/"+gatehouse.NewID().String(), nil, "Accept", "text/html")
	if page.status != 404 || !strings.Contains(page.body, "There is no such event.") || !strings.Contains(page.body, page.header.Get("X-Request-Id")) {
		t.Errorf("an unknown event for a browser: %d", page.status)
	}
	if r := b.do("POST", "/dashboard/logout", url.Values{}, "Sec-Fetch-Site", "cross-site", "Accept", "text/html"); r.status != 403 || !strings.Contains(r.body, "another site") {
		t.Errorf("a cross-site post: %d %.200s", r.status, r.body)
	}
}

// TestChartWindowIsBounded asks for a chart from the year 1 with no end:
// the window must stop at 366 days before now, as the API's date range
// does, so the image stays a few hundred bars, and it must say so.
func TestChartWindowIsBounded(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	b := s.signedIn(acme)
	r := b.do("GET", "/dashboard/events/chart.svg?dateFrom=0001-01-01", nil)
	if r.status != 200 {
		t.Fatalf("chart: %d", r.status)
	}
	t.Logf("chart.svg?dateFrom=0001-01-01: %d bars, %d bytes", strings.Count(r.body, "<g>"), len(r.body))
	if bars := strings.Count(r.body, "<g>"); bars > 367 {
		t.Errorf("%d bars (%d bytes) for dateFrom=0001-01-01, want at most 367", bars, len(r.body))
	}
	if !strings.Contains(r.body, "from 2025-11-19T00:00:00.000Z to 2026-11-20T12:00:00.000Z") {
		t.Errorf("the chart does not name the window it shows: %.300s", r.body)
	}
	if !strings.Contains(r.body, "1 granted, 1 denied in all") {
		t.Errorf("the bounded window lost the recent events: %.300s", r.body)
	}
}

// TestBusyOrganizationIsAnsweredAsTheAPIDoes: the dashboard answers a
// failed operation from the API's one error table. While the
// organization's reads are all in use, the Event Log is a 429 with
// Retry-After, as GET /events is, not a 503 "the database does not
// answer" (the database answers; the organization is busy).
func TestBusyOrganizationIsAnsweredAsTheAPIDoes(t *testing.T) {
	slots := gatehouse.NewReadSlots(1, 0)
	s := newSiteWith(t, nil, func(st *app.Settings) { st.ReadSlots = slots })
	acme := s.tenant("Acme")
	b := s.signedIn(acme)
	release, err := slots.Acquire(context.Background(), acme.org.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	r := b.do("GET", "/dashboard/events", nil)
	var body struct{ Code, RequestID string }
	if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") != "1" ||
		json.Unmarshal([]byte(r.body), &body) != nil || body.Code != "rate_limited" || body.RequestID == "" {
		t.Errorf("busy organization, JSON: %d, Retry-After %q, %s", r.status, r.header.Get("Retry-After"), r.body)
	}
	page := b.do("GET", "/dashboard/events", nil, "Accept", "text/html")
	if page.status != http.StatusTooManyRequests || page.header.Get("Retry-After") != "1" || !strings.Contains(page.body, "try again in a moment") {
		t.Errorf("busy organization, page: %d, Retry-After %q", page.status, page.header.Get("Retry-After"))
	}
}

// TestAKeyFormWithAnyProblemCreatesNothing: a lifetime the form does not
// offer, with an otherwise good key, is refused and stores no key; a form
// with several problems lists them all.
func TestAKeyFormWithAnyProblemCreatesNothing(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	b := s.signedIn(acme)
	csrf := csrfOf(t, b.do("GET", "/dashboard/keys", nil).body)
	r := b.do("POST", "/dashboard/keys", url.Values{"csrf": {csrf}, "name": {"sync"}, "scope": {"events:read"}, "expires": {"7"}})
	if r.status != http.StatusBadRequest || !strings.Contains(r.body, "choose one of the offered lifetimes") {
		t.Errorf("an unoffered lifetime: %d", r.status)
	}
	if keys, _ := s.store.ListAPIKeys(context.Background(), acme.org.ID); len(keys) != 0 {
		t.Errorf("a refused form stored %d keys", len(keys))
	}
	r = b.do("POST", "/dashboard/keys", url.Values{"csrf": {csrf}, "name": {" "}, "expires": {"7"}})
	for _, want := range []string{"choose one of the offered lifetimes", "choose at least one scope", "is required"} {
		if !strings.Contains(r.body, want) {
			t.Errorf("the form does not say %q", want)
		}
	}
}

// TestPagesAreBoundedByTheQueryTimeout: every page's work runs under the
// query timeout, as the API's does: with a timeout already spent, the
// Locations page is a 503, not an answer that waited as long as the
// database took.
func TestPagesAreBoundedByTheQueryTimeout(t *testing.T) {
	s := newSiteWith(t, nil, func(st *app.Settings) { st.QueryTimeout = time.Nanosecond })
	acme := s.tenant("Acme")
	b := s.signedIn(acme)
	if r := b.do("GET", "/dashboard/locations", nil); r.status != http.StatusServiceUnavailable {
		t.Errorf("locations page with its time spent: %d, want 503", r.status)
	}
}

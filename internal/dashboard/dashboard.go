// Package dashboard is the operators' web interface: sign-in, the Event
// Log with its chart, event detail and CSV/NDJSON exports, the locations
// and access points with their policies (an editor, and a test of a
// decision that records nothing), remote unlocks and their commands, the
// API keys, the webhook endpoints with their deliveries, and privacy (the
// retention, a player's erasure, the platform's erasure webhook).
// Pages are rendered on the server from html/template and work without
// JavaScript; a few lines of script only tell the server the browser's
// time zone and copy a new key, a webhook secret or the erasure webhook's
// URL and secret.
//
// Sessions are server-side (the store keeps a hash of the cookie's
// token). Every state-changing request must pass Go's cross-origin
// protection and carry the session's CSRF token; sign-in failures are
// limited per email from one network, under ceilings per email and per
// network, and a user an admin adds is an invitation until its first
// sign-in (see service.Service.SignIn).
package dashboard

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/httperror"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
	"github.com/gatehouse/gatehouse/internal/requestid"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
)

// Prefix is where the dashboard is served.
const Prefix = "/dashboard"

const (
	sessionCookie = "gatehouse_session"
	loginCookie   = "gatehouse_login"  // the sign-in form's CSRF token, before there is a session
	choiceCookie  = "gatehouse_choice" // a sign-in that matched several organizations, until one is picked
	// verifiedCookie: an email the OpenID provider verified, while the
	// invitations waiting for it are shown, until one is picked.
	verifiedCookie = "gatehouse_verified"
)

// Config is what the dashboard needs.
type Config struct {
	// Service performs every operation, sign-in and its limits included;
	// the handlers only translate forms and render pages.
	Service *service.Service
	Logger  *slog.Logger
	// Now is the clock; it defaults to time.Now.
	Now func() time.Time
	// PublicURL is where people reach this server (--public-url): an
	// invitation's link starts with it; empty: with the address the
	// admin's request came to.
	PublicURL string
	// QueryTimeout bounds the work of each page; it defaults to 10 s.
	// Exports stream for longer: each of their reads has its own deadline.
	QueryTimeout time.Duration
}

type dashboard struct {
	Config
	pages map[string]*template.Template
}

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets
var assetFS embed.FS

// New returns the dashboard as one handler for the paths under Prefix:
// the routes of its floor plan (routes.go), behind cross-origin protection
// and [securityHeaders]. It is meant to be mounted with server.Config.Dashboard, which gives it the
// API's request ids, access log, metrics and panic recovery.
func New(cfg Config) http.Handler {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.QueryTimeout == 0 {
		cfg.QueryTimeout = 10 * time.Second
	}
	// Mounted behind the API's middleware, every request carries an id;
	// every line the dashboard logs while serving one names it, and the
	// signed-in user and organization.
	cfg.Logger = requestid.Logger(slog.New(viewerLogs{cfg.Logger.Handler()}))
	d := &dashboard{Config: cfg, pages: map[string]*template.Template{}}
	funcs := template.FuncMap{"time": formatTime, "deref": deref, "hasValue": hasValue, "tp": timePtr,
		"timeT": gatehouse.FormatTime, "contains": slices.Contains[[]string],
		"list": func(s ...string) []string { return s }, "isDay": isDay,
		"at":  func(z zone, t gatehouse.Time) string { return inZone(z, time.Time(t)) },
		"atT": inZone, "target": commandTarget, "progress": commandProgress, "requester": commandRequester,
		"seconds": seconds, "inc": func(i int) int { return i + 1 },
		"tv": func(t *gatehouse.Time) gatehouse.Time { return *t }, "uid": func(u *uuid.UUID) uuid.UUID { return *u },
		"target_l": lockdownTarget, "ends": func(any) any { return lockdownEnds }, "profile": playerProfile,
		"zero": func(t gatehouse.Time) bool { return time.Time(t).IsZero() }, "reach": newReachChoice}
	for _, page := range templatePages {
		d.pages[page] = template.Must(template.New("layout.html").Funcs(funcs).
			ParseFS(templateFS, "templates/layout.html", "templates/filters.html", "templates/pager.html", "templates/reach.html", "templates/"+page+".html"))
	}
	mux := http.NewServeMux()
	for _, rt := range d.routes() {
		mux.Handle(rt.pattern(), d.guard(rt.access, rt.handler))
	}
	origins := http.NewCrossOriginProtection()
	origins.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d.errorPage(w, r, http.StatusForbidden, "This request came from another site, so it was refused.")
	}))
	return securityHeaders(origins.Handler(mux))
}

// securityHeaders keeps pages out of frames and caches, and scripts to
// the dashboard's own.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		if !strings.HasPrefix(r.URL.Path, Prefix+"/assets/") {
			h.Set("Cache-Control", "no-store")
		}
		next.ServeHTTP(w, r)
	})
}

// viewer is the signed-in user of a request.
type viewer struct {
	session gatehouse.Session
	user    gatehouse.User
}

type viewerKey struct{}

func viewerOf(r *http.Request) viewer {
	v, _ := r.Context().Value(viewerKey{}).(viewer)
	return v
}

// page is signedIn with the request bounded by QueryTimeout: every page
// and form of the dashboard but the streamed exports.
func (d *dashboard) page(next http.HandlerFunc) http.Handler {
	h := d.signedIn(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), d.QueryTimeout)
		defer cancel()
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

// signedIn lets only signed-in users through: a page request without a
// session goes to the sign-in form, anything else gets 403. A POST must
// carry the session's CSRF token.
func (d *dashboard) signedIn(next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var v viewer
		var err error = gatehouse.ErrNotFound
		if c, cerr := r.Cookie(sessionCookie); cerr == nil {
			v.session, v.user, err = d.Service.FindSession(r.Context(), c.Value)
		}
		switch {
		case errors.Is(err, gatehouse.ErrNotFound) && r.Method == http.MethodGet:
			http.Redirect(w, r, Prefix+"/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
			return
		case errors.Is(err, gatehouse.ErrNotFound):
			d.errorPage(w, r, http.StatusForbidden, "Your session has ended; sign in again.")
			return
		case err != nil:
			d.fail(w, r, err)
			return
		}
		if r.Method == http.MethodPost && !sameToken(r.PostFormValue("csrf"), v.session.CSRF) {
			d.errorPage(w, r, http.StatusForbidden, "This form has expired or did not come from this dashboard; go back, reload it and try again.")
			return
		}
		if v.session.EnrolOnly && !enrolOnlyPaths[r.URL.Path] {
			if r.Method == http.MethodGet {
				http.Redirect(w, r, Prefix+"/account/second-factor", http.StatusSeeOther)
				return
			}
			d.errorPage(w, r, http.StatusForbidden, "Your organization requires a second factor: set one up first.")
			return
		}
		ctx := context.WithValue(r.Context(), viewerKey{}, v)
		a := v.user.Actor()
		a.EnrolOnly, a.RequestID, a.ClientAddress, a.UserAgent = v.session.EnrolOnly, requestid.FromContext(ctx), ratelimit.ClientAddress(r), r.UserAgent()
		ctx = gatehouse.WithActor(ctx, a)
		next(w, r.WithContext(ctx))
	})
}

// page is what every template gets: Zone is where times are shown, Here
// the page the zone selector comes back to.
type page struct {
	User  gatehouse.User
	CSRF  string
	Zone  zone
	Zones []string
	Here  string
	Data  any
	// Lockdowns are the lockdowns running in the user's organization: a
	// banner on every page while one runs.
	Lockdowns []gatehouse.Lockdown
}

// Can says whether the signed-in user's role grants the permission named
// perm: the pages hide what the service would refuse.
func (p page) Can(perm string) bool { return p.User.Can(gatehouse.Permission(perm)) }

func (d *dashboard) render(w http.ResponseWriter, r *http.Request, status int, name string, data any) {
	v := viewerOf(r)
	var b bytes.Buffer
	if err := d.pages[name].Execute(&b, page{User: v.user, CSRF: v.session.CSRF,
		Zone: zoneOf(r), Zones: zoneChoices, Here: r.URL.RequestURI(), Data: data, Lockdowns: d.activeLockdowns(r)}); err != nil {
		d.Logger.LogAttrs(r.Context(), slog.LevelError, "dashboard template", slog.String("page", name), slog.String("error", err.Error()))
		httperror.WriteJSON(w, w.Header().Get("X-Request-Id"), httperror.For(err))
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	b.WriteTo(w)
}

// errorPage answers an outcome of the dashboard's own (a page that does
// not exist, a form that expired) as a page for browsers and, for any
// other client, as the JSON error every route of the service answers with.
func (d *dashboard) errorPage(w http.ResponseWriter, r *http.Request, status int, message string) {
	d.answer(w, r, httperror.OfStatus(status, message), message)
}

// answer writes a: the error page with message for browsers, the JSON
// envelope (a's own message) for any other client.
func (d *dashboard) answer(w http.ResponseWriter, r *http.Request, a httperror.Answer, message string) {
	if !strings.Contains(r.Header.Get("Accept"), "text/html") {
		httperror.WriteJSON(w, w.Header().Get("X-Request-Id"), a)
		return
	}
	httperror.SetRetryAfter(w.Header(), a.Status)
	d.render(w, r, a.Status, "error", struct {
		Status             int
		Message, RequestID string
	}{a.Status, message, w.Header().Get("X-Request-Id")})
}

// pageMessages say on a page what an error's status means to an operator.
var pageMessages = map[int]string{
	http.StatusForbidden:          "Your role does not allow this; ask an admin of your organization.",
	http.StatusNotFound:           "There is no such page.",
	http.StatusTooManyRequests:    "Too many requests of your organization are being served at once; try again in a moment.",
	http.StatusServiceUnavailable: "The database does not answer right now; try again in a moment.",
}

// fail answers the error of an operation with the status the API gives
// it (the one table of internal/httperror): 503 when the database is
// away, 429 when the organization's reads are all in use, 500 for a bug,
// whose detail is logged.
func (d *dashboard) fail(w http.ResponseWriter, r *http.Request, err error) {
	a := httperror.For(err)
	message, ok := pageMessages[a.Status]
	switch {
	case a.Internal || !ok && a.Status >= 500:
		d.Logger.LogAttrs(r.Context(), slog.LevelError, "dashboard request failed", slog.String("error", err.Error()))
		message = "Something went wrong on our side."
	case !ok:
		message = a.Message
	}
	d.answer(w, r, a, message)
}

func formatTime(t gatehouse.Time) string { return gatehouse.FormatTime(time.Time(t)) }

// hasValue says whether the form has value for name, in a repeated or a
// comma-separated field.
func hasValue(v url.Values, name, value string) bool {
	for _, s := range v[name] {
		if slices.Contains(strings.Split(s, ","), value) {
			return true
		}
	}
	return false
}

func timePtr(t *time.Time) gatehouse.Time {
	if t == nil {
		return gatehouse.Time{}
	}
	return gatehouse.Time(*t)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// playerProfile is a player's profile page on the game platform.
func playerProfile(platformUserID string) string {
	return "https://www.roblox.com/users/" + url.PathEscape(platformUserID) + "/profile"
}

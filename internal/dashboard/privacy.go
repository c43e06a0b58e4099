package dashboard

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/gatehouse/gatehouse"
)

// The Privacy page (admins): the organization's retention with a form to
// change it, the erasure of a player after a confirmation page, and the
// platform's right-to-erasure webhook (its URL and secret to paste in the
// platform's settings, and the requests it received). Every operation is
// the service's (PermManagePrivacy): for other roles the page and its
// forms answer what the service does, 403.

// erasureRequestsShown is how many of the webhook's most recent requests
// the page lists.
const erasureRequestsShown = 50

// privacyPage is the page. Erased is set only on the page the erase
// form's redirect leads to; Notice says what another form did.
type privacyPage struct {
	Organization gatehouse.Organization
	MinDays      int
	MaxDays      int
	Days         string // the retention form's value: the current one, or what was typed
	Player       string // the erase form's value, after a problem
	Issues       map[string][]string
	Notice       string
	Erased       *gatehouse.Erasure
	Webhook      *erasureWebhook
	Requests     []gatehouse.ErasureRequest
	Limit        int
}

// erasureWebhook is the organization's right-to-erasure webhook as an
// admin pastes it in the platform's settings.
type erasureWebhook struct {
	URL, Secret string
	CreatedAt   gatehouse.Time
}

// privacyNotices are what ?done= on the page says: a fixed set, so that a
// link cannot make the page say anything else.
var privacyNotices = map[string]string{
	"retention": "The retention is changed: older events are deleted within a few minutes.",
	"webhook":   "The erasure webhook is set up: paste its URL and secret in the platform's settings as below. Any URL set up before no longer works.",
}

// privacyLabels name the service's fields as the forms do.
var privacyLabels = map[string]string{"retentionDays": "Retention", "platformUserId": "Platform user id"}

func (d *dashboard) privacyPage(w http.ResponseWriter, r *http.Request) {
	p := privacyPage{Notice: privacyNotices[r.URL.Query().Get("done")]}
	var er gatehouse.Erasure
	if erasedFlash.take(w, r, &er) {
		p.Erased = &er
	}
	d.renderPrivacy(w, r, http.StatusOK, p)
}

// renderPrivacy reads the organization's settings, its erasure webhook
// and the requests it received into p and renders the page.
func (d *dashboard) renderPrivacy(w http.ResponseWriter, r *http.Request, status int, p privacyPage) {
	orgID := viewerOf(r).user.OrgID
	// The requests first: the service refuses them to a role that may
	// not manage privacy, before anything of the page is read.
	reqs, err := d.Service.ListErasureRequests(r.Context(), orgID, erasureRequestsShown)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	org, err := d.Service.Organization(r.Context(), orgID)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	in, err := d.Service.ErasureWebhook(r.Context(), orgID)
	switch {
	case errors.Is(err, gatehouse.ErrNotFound):
	case err != nil:
		d.fail(w, r, err)
		return
	default:
		p.Webhook = &erasureWebhook{URL: serverURL(r) + gatehouse.ErasureWebhookPath + in.Token, Secret: in.Secret, CreatedAt: in.CreatedAt}
	}
	p.Organization, p.Requests, p.Limit = org, reqs, erasureRequestsShown
	p.MinDays, p.MaxDays = gatehouse.MinRetentionDays, gatehouse.MaxRetentionDays
	if p.Days == "" {
		p.Days = strconv.Itoa(org.RetentionDays)
	}
	d.render(w, r, status, "privacy", p)
}

// serverURL is this server's address as the request reached it: the
// scheme as secure decides it (TLS, or a proxy's X-Forwarded-Proto) and
// the Host header. The API is served at the same address as the
// dashboard.
func serverURL(r *http.Request) string {
	scheme := "http"
	if secure(r) {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// setRetention changes how many days of events are kept; a value the
// service refuses comes back next to the field, as typed.
func (d *dashboard) setRetention(w http.ResponseWriter, r *http.Request) {
	typed := strings.TrimSpace(r.PostFormValue("retentionDays"))
	days, err := strconv.Atoi(typed)
	if err != nil {
		d.privacyIssues(w, r, map[string][]string{"retentionDays": {"must be a whole number of days"}}, privacyPage{Days: typed})
		return
	}
	_, err = d.Service.SetRetention(r.Context(), viewerOf(r).user.OrgID, days)
	var ve *gatehouse.ValidationError
	switch {
	case errors.As(err, &ve):
		d.privacyIssues(w, r, ve.Issues, privacyPage{Days: typed})
	case err != nil:
		d.fail(w, r, err)
	default:
		http.Redirect(w, r, Prefix+"/privacy?done=retention", http.StatusSeeOther)
	}
}

// privacyIssues renders the page with issues by the forms' labels: 400.
func (d *dashboard) privacyIssues(w http.ResponseWriter, r *http.Request, issues map[string][]string, p privacyPage) {
	p.Issues = map[string][]string{}
	for field, msgs := range issues {
		label := privacyLabels[field]
		if label == "" {
			label = field
		}
		p.Issues[label] = append(p.Issues[label], msgs...)
	}
	d.renderPrivacy(w, r, http.StatusBadRequest, p)
}

// erasePlayer answers the erase form. Without confirm it shows the
// confirmation, which names the player and says it cannot be undone;
// with confirm (the confirmation's button) it erases, then redirects to
// the page with the counts (POST-redirect-GET: a reload erases nothing
// again). The id travels in the forms' bodies only, never in a URL.
func (d *dashboard) erasePlayer(w http.ResponseWriter, r *http.Request) {
	// The confirmation must not be shown to someone who cannot use it;
	// the service would refuse the erasure anyway.
	if !viewerOf(r).user.Can(gatehouse.PermManagePrivacy) {
		d.fail(w, r, gatehouse.ErrForbidden)
		return
	}
	player := strings.TrimSpace(r.PostFormValue("platformUserId"))
	if player == "" {
		d.privacyIssues(w, r, map[string][]string{"platformUserId": {"is required"}}, privacyPage{})
		return
	}
	if r.PostFormValue("confirm") != "yes" {
		d.render(w, r, http.StatusOK, "erase-player", player)
		return
	}
	er, err := d.Service.ErasePlatformUser(r.Context(), viewerOf(r).user.OrgID, player)
	var ve *gatehouse.ValidationError
	switch {
	case errors.As(err, &ve):
		d.privacyIssues(w, r, ve.Issues, privacyPage{Player: player})
	case err != nil:
		d.fail(w, r, err)
	default:
		erasedFlash.give(w, r, er)
		http.Redirect(w, r, Prefix+"/privacy", http.StatusSeeOther)
	}
}

// setUpErasureWebhook makes the organization's right-to-erasure webhook,
// or replaces it: the old URL stops working at once.
func (d *dashboard) setUpErasureWebhook(w http.ResponseWriter, r *http.Request) {
	if _, err := d.Service.SetUpErasureWebhook(r.Context(), viewerOf(r).user.OrgID); err != nil {
		d.fail(w, r, err)
		return
	}
	http.Redirect(w, r, Prefix+"/privacy?done=webhook", http.StatusSeeOther)
}

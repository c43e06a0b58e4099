package dashboard

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// deliveriesShown is how many of an endpoint's most recent deliveries
// its page lists (the log keeps 1,000; the API pages through them).
const deliveriesShown = 50

// webhookPage is one endpoint with its recent deliveries. Notice says
// what the last form did, or why it did nothing.
type webhookPage struct {
	Webhook    gatehouse.Webhook
	Deliveries []gatehouse.WebhookDelivery
	Notice     string
	Issues     map[string][]string
	After      string // the replay form's cursor as typed, after a problem
	From       string // the replay form's choice ("start", "cursor"), after a problem
	Limit      int    // how many deliveries the page lists at most
	// Secret is the new secret of a rotation, shown on this one answer.
	Secret string
}

// webhookNotices are what ?done= on an endpoint's page says: a fixed
// set, so that a link cannot make the page say anything else.
var webhookNotices = map[string]string{
	"enabled":     "The endpoint is enabled: deliveries resume where they stopped.",
	"disabled":    "The endpoint is disabled: nothing is sent to it until it is enabled again.",
	"tested":      "A webhook.test message is queued: it is sent within a second or so, before anything else.",
	"redelivered": "The message is queued to be sent again, once, with the same webhook-id.",
	"replayed":    "The endpoint's position in the feed moved: the events after the starting point are delivered again, in order.",
}

// webhookDetail shows one endpoint of the viewer's organization.
func (d *dashboard) webhookDetail(w http.ResponseWriter, r *http.Request) {
	d.renderWebhook(w, r, http.StatusOK, webhookPage{Notice: webhookNotices[r.URL.Query().Get("done")]})
}

// renderWebhook reads the path's endpoint and its deliveries into p and
// renders its page; another organization's id reads as an unknown one.
func (d *dashboard) renderWebhook(w http.ResponseWriter, r *http.Request, status int, p webhookPage) {
	orgID := viewerOf(r).user.OrgID
	hook, ok := d.findWebhook(w, r)
	if !ok {
		return
	}
	ds, err := d.Service.ListWebhookDeliveries(r.Context(), orgID, hook.ID, deliveriesShown)
	if err != nil {
		d.webhookFailed(w, r, err)
		return
	}
	p.Webhook, p.Deliveries, p.Limit = hook, ds, deliveriesShown
	d.render(w, r, status, "webhook", p)
}

// findWebhook reads the path's endpoint; it answers the error itself and
// then reports false.
func (d *dashboard) findWebhook(w http.ResponseWriter, r *http.Request) (gatehouse.Webhook, bool) {
	hook, err := d.Service.FindWebhook(r.Context(), viewerOf(r).user.OrgID, pathID(r))
	if err != nil {
		d.webhookFailed(w, r, err)
		return hook, false
	}
	return hook, true
}

// webhookFailed answers an operation's error: an unknown endpoint or
// delivery is a 404 page, anything else as every page answers it.
func (d *dashboard) webhookFailed(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, gatehouse.ErrNotFound) {
		d.errorPage(w, r, http.StatusNotFound, "There is no such webhook endpoint or delivery.")
		return
	}
	d.fail(w, r, err)
}

// webhookDone answers a form of an endpoint's page: back to the page with
// what it did (POST-redirect-GET: a reload sends nothing again); the page
// with why it did nothing for an endpoint that is disabled or a bad
// cursor.
func (d *dashboard) webhookDone(w http.ResponseWriter, r *http.Request, err error, done string) {
	var (
		ve *gatehouse.ValidationError
		ce *gatehouse.ConflictError
	)
	switch {
	case errors.As(err, &ve):
		d.renderWebhook(w, r, http.StatusBadRequest, webhookPage{Issues: webhookIssues(ve.Issues), After: r.PostFormValue("after"), From: r.PostFormValue("from")})
	case errors.As(err, &ce):
		d.renderWebhook(w, r, http.StatusConflict, webhookPage{Notice: "Nothing was sent: the endpoint is disabled; enable it first."})
	case err != nil:
		d.webhookFailed(w, r, err)
	default:
		http.Redirect(w, r, Prefix+"/webhooks/"+pathID(r).String()+"?done="+done, http.StatusSeeOther)
	}
}

// setWebhookEnabled enables or disables an endpoint, as the form's
// enabled field says.
func (d *dashboard) setWebhookEnabled(w http.ResponseWriter, r *http.Request) {
	enabled, err := strconv.ParseBool(r.PostFormValue("enabled"))
	if err != nil {
		d.errorPage(w, r, http.StatusBadRequest, "The form did not say whether to enable or disable the endpoint.")
		return
	}
	_, err = d.Service.UpdateWebhook(r.Context(), viewerOf(r).user.OrgID, pathID(r), gatehouse.WebhookInput{Enabled: &enabled})
	done := "disabled"
	if enabled {
		done = "enabled"
	}
	d.webhookDone(w, r, err, done)
}

// testWebhook queues a webhook.test message to the endpoint.
func (d *dashboard) testWebhook(w http.ResponseWriter, r *http.Request) {
	_, err := d.Service.TestWebhook(r.Context(), viewerOf(r).user.OrgID, pathID(r))
	d.webhookDone(w, r, err, "tested")
}

// redeliverWebhook queues one of the endpoint's deliveries to be sent
// again; the service finds it within the endpoint and the organization.
func (d *dashboard) redeliverWebhook(w http.ResponseWriter, r *http.Request) {
	delivery, _ := uuid.Parse(r.PathValue("delivery"))
	_, err := d.Service.RedeliverWebhook(r.Context(), viewerOf(r).user.OrgID, pathID(r), delivery)
	d.webhookDone(w, r, err, "redelivered")
}

// replayConfirmation asks before a replay, saying how many events it
// sends; its form sends the same starting point with confirm=yes.
type replayConfirmation struct {
	Webhook gatehouse.Webhook
	From    string // "start", or empty with After
	After   string
	Events  int64
}

// replayWebhook moves the endpoint's position in the feed to the form's
// starting point: after its cursor (from=cursor), or the feed's start
// (from=start). There is no default. The first post asks first, on a
// page that counts the events the replay would send; the second, with
// confirm=yes, replays.
func (d *dashboard) replayWebhook(w http.ResponseWriter, r *http.Request) {
	orgID := viewerOf(r).user.OrgID
	from, after := r.PostFormValue("from"), r.PostFormValue("after")
	switch from {
	case "cursor":
		from = ""
		if after == "" {
			d.renderWebhook(w, r, http.StatusBadRequest, webhookPage{From: "cursor", Issues: map[string][]string{"Cursor": {"is empty: paste a feed cursor, or choose the feed's start"}}})
			return
		}
	case "":
		if after == "" {
			d.renderWebhook(w, r, http.StatusBadRequest, webhookPage{Issues: map[string][]string{"Start": {"choose where the replay starts: after a cursor, or the feed's start"}}})
			return
		}
	case gatehouse.ReplayFromStart:
		after = ""
	}
	start, err := gatehouse.ParseReplayFrom(after, from)
	if err != nil {
		d.webhookDone(w, r, err, "")
		return
	}
	if r.PostFormValue("confirm") != "yes" {
		n, err := d.Service.CountWebhookReplay(r.Context(), orgID, pathID(r), start)
		if err != nil {
			d.webhookDone(w, r, err, "")
			return
		}
		if hook, ok := d.findWebhook(w, r); ok {
			d.render(w, r, http.StatusOK, "replay-webhook", replayConfirmation{Webhook: hook, From: from, After: after, Events: n})
		}
		return
	}
	_, _, err = d.Service.ReplayWebhook(r.Context(), orgID, pathID(r), start)
	d.webhookDone(w, r, err, "replayed")
}

// rotateWebhookSecret gives the endpoint a new secret and shows it on
// the answer itself (never in a redirect's URL): the previous one signs
// too for the form's overlap, in hours.
func (d *dashboard) rotateWebhookSecret(w http.ResponseWriter, r *http.Request) {
	hours, err := strconv.Atoi(r.PostFormValue("overlapHours"))
	if err != nil {
		d.errorPage(w, r, http.StatusBadRequest, "The overlap must be a whole number of hours, from 0 to 168.")
		return
	}
	overlap := time.Duration(hours) * time.Hour
	_, secret, err := d.Service.RotateWebhookSecret(r.Context(), viewerOf(r).user.OrgID, pathID(r), &overlap)
	if err != nil {
		d.webhookDone(w, r, err, "")
		return
	}
	d.renderWebhook(w, r, http.StatusOK, webhookPage{Secret: secret,
		Notice: "The secret is rotated. Copy the new one now: it is never shown again."})
}

// confirmDeleteWebhook asks before deleting: the form on this page does it.
func (d *dashboard) confirmDeleteWebhook(w http.ResponseWriter, r *http.Request) {
	if hook, ok := d.findWebhook(w, r); ok {
		d.render(w, r, http.StatusOK, "delete-webhook", hook)
	}
}

// deleteWebhook deletes the endpoint and its delivery log.
func (d *dashboard) deleteWebhook(w http.ResponseWriter, r *http.Request) {
	if err := d.Service.DeleteWebhook(r.Context(), viewerOf(r).user.OrgID, pathID(r)); err != nil {
		d.webhookFailed(w, r, err)
		return
	}
	http.Redirect(w, r, Prefix+"/webhooks?deleted=1", http.StatusSeeOther)
}

package dashboard

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gatehouse/gatehouse"
)

// The Alerts pages (admins, as webhooks): the organization's alert rules
// with a form to make one (a standard-webhooks destination's secret shown
// once) and buttons to test or delete each; what fired, newest first;
// and an alert's page with every attempt at delivering it.

// alertsShown is how many of the latest alerts the page lists.
const alertsShown = 50

type alertsPage struct {
	Rules   []gatehouse.AlertRule
	Alerts  []gatehouse.Alert
	Created *createdAlertRule
	Notice  string
	// Form is the create form as sent; its filters by their feed names,
	// as the event-filters and place-filters templates read them.
	Form      url.Values
	Issues    map[string][]string
	Types     []gatehouse.EventType
	Scopes    []gatehouse.CommandScope
	Locations []gatehouse.Location
	Actions   []gatehouse.AuditAction
}

// createdAlertRule crosses the create form's redirect in a flash cookie.
type createdAlertRule struct {
	ID, Name, Secret string
}

// alertNotices are what ?done= on the Alerts page says.
var alertNotices = map[string]string{
	"created": "The rule is made: it counts the events stored from now on.",
	"tested":  "A test alert is queued: it reaches the destination within a few seconds; its delivery shows below.",
	"deleted": "The rule is deleted, with the alerts it fired.",
}

func (d *dashboard) alertsPage(w http.ResponseWriter, r *http.Request) {
	p := alertsPage{Notice: alertNotices[r.URL.Query().Get("done")],
		Form: url.Values{"kind": {"threshold"}, "threshold": {"10"}, "windowMinutes": {"5"}, "cooldownMinutes": {"5"}, "groupBy": {"platformUserId"}}}
	var c createdAlertRule
	if newAlertRuleFlash.take(w, r, &c) && c.ID != "" {
		p.Created = &c
	}
	d.renderAlerts(w, r, http.StatusOK, p)
}

func (d *dashboard) renderAlerts(w http.ResponseWriter, r *http.Request, status int, p alertsPage) {
	orgID := viewerOf(r).user.OrgID
	rules, err := d.Service.ListAlertRules(r.Context(), orgID)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	fired, err := d.Service.ListAlerts(r.Context(), orgID, gatehouse.AlertFilter{Limit: alertsShown})
	if err != nil {
		d.fail(w, r, err)
		return
	}
	locs, ok := d.allLocations(w, r)
	if !ok {
		return
	}
	p.Rules, p.Alerts, p.Locations = rules, fired.Alerts, locs
	p.Types, p.Scopes, p.Actions = gatehouse.EventTypes, gatehouse.CommandScopes, gatehouse.AlertAuditActions()
	d.render(w, r, status, "alerts", p)
}

// alertFormFields are the create form's fields besides the filters.
var alertFormFields = []string{"name", "kind", "threshold", "windowMinutes", "groupBy", "actions", "format", "url", "cooldownMinutes"}

// createAlertRule makes a rule from the form and redirects to the page
// (POST-redirect-GET), which shows a standard-webhooks secret this once.
func (d *dashboard) createAlertRule(w http.ResponseWriter, r *http.Request) {
	form := postedForm(r, append(alertFormFields, webhookFilterFields...))
	minutes := func(name string) int {
		n, err := strconv.ParseFloat(form.Get(name), 64)
		if err != nil {
			return -1
		}
		return int(n * 60)
	}
	c := gatehouse.AlertCondition{Kind: gatehouse.AlertKind(form.Get("kind"))}
	if c.Kind == gatehouse.AlertAudit {
		for _, a := range form["actions"] {
			c.Actions = append(c.Actions, gatehouse.AuditAction(a))
		}
	} else {
		c.Threshold, _ = strconv.Atoi(form.Get("threshold"))
		c.WindowSeconds, c.GroupBy = minutes("windowMinutes"), gatehouse.AlertGroupBy(form.Get("groupBy"))
		c.Filters = formFilters(form)
	}
	cooldown := minutes("cooldownMinutes")
	in := gatehouse.AlertRuleInput{Name: ptr(form.Get("name")), Condition: &c, CooldownSeconds: &cooldown,
		Destination: &gatehouse.AlertDestination{Format: gatehouse.AlertFormat(form.Get("format")), URL: form.Get("url")}}
	rule, secret, err := d.Service.CreateAlertRule(r.Context(), viewerOf(r).user.OrgID, in)
	var (
		ve *gatehouse.ValidationError
		ce *gatehouse.ConflictError
	)
	switch {
	case errors.As(err, &ve):
		d.renderAlerts(w, r, http.StatusBadRequest, alertsPage{Form: form, Issues: alertIssues(ve.Issues)})
	case errors.As(err, &ce):
		d.renderAlerts(w, r, http.StatusConflict, alertsPage{Form: form, Issues: map[string][]string{"Rule": {ce.Message}}})
	case err != nil:
		d.fail(w, r, err)
	default:
		newAlertRuleFlash.give(w, r, createdAlertRule{ID: rule.ID.String(), Name: rule.Name, Secret: secret})
		http.Redirect(w, r, Prefix+"/alerts?done=created", http.StatusSeeOther)
	}
}

// alertFieldLabels name the rule's fields as the form does.
var alertFieldLabels = map[string]string{"name": "Name", "condition": "Condition", "condition.kind": "Kind",
	"condition.threshold": "Threshold", "condition.windowSeconds": "Window", "condition.groupBy": "Counted per",
	"condition.actions": "Audit actions", "destination.format": "Format", "destination.url": "URL", "destination": "Destination",
	"cooldownSeconds": "Cooldown"}

func alertIssues(issues map[string][]string) map[string][]string {
	out := map[string][]string{}
	for field, msgs := range issues {
		label := alertFieldLabels[field]
		switch {
		case label != "":
		case strings.HasPrefix(field, "condition.actions["):
			label = "Audit actions"
		case strings.HasPrefix(field, "condition.filters."):
			label = "Filter " + strings.TrimPrefix(field, "condition.filters.")
		default:
			label = field
		}
		out[label] = append(out[label], msgs...)
	}
	return out
}

// testAlertRule queues a test alert of the path's rule.
func (d *dashboard) testAlertRule(w http.ResponseWriter, r *http.Request) {
	_, err := d.Service.TestAlertRule(r.Context(), viewerOf(r).user.OrgID, pathID(r))
	d.alertDone(w, r, err, "tested")
}

// deleteAlertRule deletes the path's rule and its alerts.
func (d *dashboard) deleteAlertRule(w http.ResponseWriter, r *http.Request) {
	d.alertDone(w, r, d.Service.DeleteAlertRule(r.Context(), viewerOf(r).user.OrgID, pathID(r)), "deleted")
}

func (d *dashboard) alertDone(w http.ResponseWriter, r *http.Request, err error, done string) {
	switch {
	case errors.Is(err, gatehouse.ErrNotFound):
		d.errorPage(w, r, http.StatusNotFound, "There is no such alert rule.")
	case err != nil:
		d.fail(w, r, err)
	default:
		http.Redirect(w, r, Prefix+"/alerts?done="+done, http.StatusSeeOther)
	}
}

// alertDetail shows one alert and every attempt at delivering it.
func (d *dashboard) alertDetail(w http.ResponseWriter, r *http.Request) {
	a, err := d.Service.FindAlert(r.Context(), viewerOf(r).user.OrgID, pathID(r))
	switch {
	case errors.Is(err, gatehouse.ErrNotFound):
		d.errorPage(w, r, http.StatusNotFound, "There is no such alert.")
	case err != nil:
		d.fail(w, r, err)
	default:
		d.render(w, r, http.StatusOK, "alert", struct {
			Alert   gatehouse.Alert
			Summary string
		}{a, gatehouse.AlertSummary(a)})
	}
}

package dashboard

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/gatehouse/gatehouse"
)

// The Webhooks pages (admins): the organization's endpoints with a form
// to make one, whose signing secret is shown once; an endpoint's page
// with its recent deliveries, and the forms to enable or disable it,
// send a test message, redeliver, replay and delete. Every operation is
// the service's (PermManageWebhooks): for other roles the pages answer
// what the service does, 403.

// webhooksPage lists the endpoints; Created is set only on the page the
// create form's redirect leads to, the one time the secret shows.
type webhooksPage struct {
	Webhooks []gatehouse.Webhook
	Created  *createdWebhook
	Deleted  bool
	// Form is the create form as sent (its filter fields by their feed
	// names, which the Event Log's place-filters template reads too).
	Form   url.Values
	Issues map[string][]string
	// WebhookTypes are the messages an endpoint may take; Types and
	// Scopes the event filters' choices (the "event-filters" template).
	WebhookTypes []gatehouse.WebhookType
	Types        []gatehouse.EventType
	Scopes       []gatehouse.CommandScope
	Locations    []gatehouse.Location
}

// createdWebhook crosses the create form's redirect in a flash cookie.
type createdWebhook struct {
	ID, URL, Secret string
}

// webhookFilterFields are the feed's filters the create form offers, by
// their names in the form and in an endpoint's filters.
var webhookFilterFields = []string{"type", "allowed", "accessPointId", "locationId", "platformUserId", "reason", "scope"}

func (d *dashboard) webhooksPage(w http.ResponseWriter, r *http.Request) {
	p := webhooksPage{Form: url.Values{"types": {string(gatehouse.WebhookEventCreated)}},
		Deleted: r.URL.Query().Has("deleted")}
	var c createdWebhook
	if newWebhookFlash.take(w, r, &c) && c.Secret != "" {
		p.Created = &c
	}
	d.renderWebhooks(w, r, http.StatusOK, p)
}

func (d *dashboard) renderWebhooks(w http.ResponseWriter, r *http.Request, status int, p webhooksPage) {
	hooks, err := d.Service.ListWebhooks(r.Context(), viewerOf(r).user.OrgID)
	if err != nil {
		d.fail(w, r, err)
		return
	}
	locs, ok := d.allLocations(w, r)
	if !ok {
		return
	}
	p.Webhooks, p.Locations = hooks, locs
	p.WebhookTypes, p.Types, p.Scopes = gatehouse.WebhookTypes, gatehouse.EventTypes, gatehouse.CommandScopes
	d.render(w, r, status, "webhooks", p)
}

// createWebhook makes an endpoint and redirects to the list, which shows
// its secret this once (POST-redirect-GET, as for a new API key: a
// reload creates nothing and shows the secret no more). A form with
// problems comes back with them by field and the values typed.
func (d *dashboard) createWebhook(w http.ResponseWriter, r *http.Request) {
	form := webhookForm(r)
	in := gatehouse.WebhookInput{URL: ptr(form.Get("url")), Description: ptr(form.Get("description"))}
	for _, t := range form["types"] {
		in.Types = append(in.Types, gatehouse.WebhookType(t))
	}
	filters := formFilters(form)
	in.Filters = &filters
	hook, secret, err := d.Service.CreateWebhook(r.Context(), viewerOf(r).user.OrgID, in)
	var (
		ve *gatehouse.ValidationError
		ce *gatehouse.ConflictError
	)
	switch {
	case errors.As(err, &ve):
		d.renderWebhooks(w, r, http.StatusBadRequest, webhooksPage{Form: form, Issues: webhookIssues(ve.Issues)})
	case errors.As(err, &ce):
		d.renderWebhooks(w, r, http.StatusConflict, webhooksPage{Form: form,
			Issues: webhookIssues(map[string][]string{ce.Field: {ce.Message}})})
	case err != nil:
		d.fail(w, r, err)
	default:
		newWebhookFlash.give(w, r, createdWebhook{ID: hook.ID.String(), URL: hook.URL, Secret: secret})
		http.Redirect(w, r, Prefix+"/webhooks", http.StatusSeeOther)
	}
}

// webhookForm is the create form's fields, trimmed, without the CSRF
// token: what the form shows again when it has a problem.
func webhookForm(r *http.Request) url.Values {
	return postedForm(r, append([]string{"url", "description", "types"}, webhookFilterFields...))
}

// postedForm is the posted values of the named fields, trimmed, the
// empty ones left out (and with them the CSRF token and anything else
// the form does not name).
func postedForm(r *http.Request, names []string) url.Values {
	form := url.Values{}
	for _, name := range names {
		for _, v := range r.PostForm[name] {
			if v = strings.TrimSpace(v); v != "" {
				form.Add(name, v)
			}
		}
	}
	return form
}

// formFilters is the feed filters a form sets (webhookFilterFields), a
// field's several values joined with commas as the feed takes them.
func formFilters(form url.Values) map[string]string {
	filters := map[string]string{}
	for _, f := range webhookFilterFields {
		if v := strings.Join(form[f], ","); v != "" {
			filters[f] = v
		}
	}
	return filters
}

// webhookFieldLabels name the endpoint's fields as the form does.
var webhookFieldLabels = map[string]string{"url": "URL", "description": "Description", "types": "Types",
	"enabled": "Enabled", "after": "Cursor", "from": "Start", "filters": "Filters"}

// webhookIssues names the service's issues by the form's labels: "url"
// is URL, "types[1]" Types, "filters.type" Filter Type (the Event Log's
// label of the feed's field).
func webhookIssues(issues map[string][]string) map[string][]string {
	out := map[string][]string{}
	for field, msgs := range issues {
		label := webhookFieldLabels[field]
		switch {
		case label != "":
		case strings.HasPrefix(field, "types["):
			label = "Types"
		case strings.HasPrefix(field, "filters."):
			name := strings.TrimPrefix(field, "filters.")
			if fieldLabels[name] != "" {
				name = fieldLabels[name]
			}
			label = "Filter " + name
		default:
			label = field
		}
		out[label] = append(out[label], msgs...)
	}
	return out
}

// ptr returns a pointer to v.
func ptr[T any](v T) *T { return &v }

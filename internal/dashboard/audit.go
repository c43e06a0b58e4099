package dashboard

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
	"github.com/gatehouse/gatehouse/internal/requestid"
)

// auditPage is the Audit log: the API's filters, read by the same code,
// with Older and Newer links as on the Event Log.
type auditPage struct {
	Form    url.Values
	Actions []gatehouse.AuditAction
	Entries []gatehouse.AuditEntry
	Issues  map[string][]string
	Older   string
	Newer   string
}

// auditLog serves the Audit log to admins; the service refuses anyone
// else (ErrForbidden), whatever the nav shows.
func (d *dashboard) auditLog(w http.ResponseWriter, r *http.Request) {
	orgID := viewerOf(r).user.OrgID
	form := r.URL.Query()
	for name, values := range form { // an empty field of the form is an absent filter
		if !slices.ContainsFunc(values, func(s string) bool { return s != "" }) {
			form.Del(name)
		}
	}
	// prev holds the cursors of the newer pages walked to get here,
	// newest first (the first page's is empty): the way back.
	prev := strings.Split(form.Get("prev"), " ")
	if form.Get("prev") == "" {
		prev = nil
	}
	form.Del("prev")
	p := auditPage{Form: form, Actions: gatehouse.AuditActions}
	status := http.StatusOK
	f, err := d.Service.ReadAuditQuery(orgID, form)
	var ve *gatehouse.ValidationError
	switch {
	case errors.As(err, &ve):
		p.Issues, status = ve.Issues, http.StatusBadRequest
		if _, err := d.Service.ListAuditLog(r.Context(), orgID, gatehouse.AuditFilter{Limit: 1}); err != nil {
			d.fail(w, r, err) // a viewer's malformed query is still refused as a viewer's
			return
		}
	case err != nil:
		d.fail(w, r, err)
		return
	default:
		page, err := d.Service.ListAuditLog(r.Context(), orgID, f)
		if err != nil {
			d.fail(w, r, err)
			return
		}
		p.Entries = page.Entries
		cursor := form.Get("cursor")
		if page.Next != nil {
			older := withoutCursor(form)
			older.Set("cursor", d.Service.AuditCursor(orgID, f, *page.Next))
			if cursor != "" {
				back := append([]string{cursor}, prev...)
				older.Set("prev", strings.Join(back[:min(len(back), maxPrev)], " "))
			}
			p.Older = Prefix + "/audit?" + older.Encode()
		}
		if cursor != "" {
			newer := withoutCursor(form)
			if len(prev) > 0 {
				newer.Set("cursor", prev[0])
				if len(prev) > 1 {
					newer.Set("prev", strings.Join(prev[1:], " "))
				}
			}
			p.Newer = Prefix + "/audit?" + newer.Encode()
		}
	}
	d.render(w, r, status, "audit", p)
}

// anonymous is the context of a sign-in: nobody is signed in yet, but
// the audit entry of the attempt names the request and the client.
func anonymous(r *http.Request) context.Context {
	return gatehouse.WithActor(r.Context(), gatehouse.Actor{Type: gatehouse.ActorUser,
		RequestID: requestid.FromContext(r.Context()), ClientAddress: ratelimit.ClientAddress(r)})
}

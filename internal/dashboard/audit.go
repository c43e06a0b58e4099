package dashboard

import (
	"context"
	"errors"
	"net/http"
	"net/url"

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
	form, prev := listForm(r)
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
		next := ""
		if page.Next != nil {
			next = d.Service.AuditCursor(orgID, f, *page.Next)
		}
		p.Older, p.Newer = pageLinks(Prefix+"/audit", form, form.Get("cursor"), prev, next)
	}
	d.render(w, r, status, "audit", p)
}

// anonymous is the context of a sign-in: nobody is signed in yet, but
// the audit entry of the attempt names the request and the client.
func anonymous(r *http.Request) context.Context {
	return gatehouse.WithActor(r.Context(), gatehouse.Actor{Type: gatehouse.ActorUser,
		RequestID: requestid.FromContext(r.Context()), ClientAddress: ratelimit.ClientAddress(r), UserAgent: r.UserAgent()})
}

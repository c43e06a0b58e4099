package gatehouse

import (
	"net/url"
	"slices"
	"strings"

	"github.com/google/uuid"
)

// AuditQueryParams lists the query parameters ReadAuditQuery reads.
var AuditQueryParams = []string{"action", "actorId", "targetId", "dateFrom", "dateTo", paramLimit, paramCursor}

// ReadAuditQuery parses the query of an audit log list (GET /audit-log,
// the dashboard's Audit log, the CLI) and opens its cursor for orgID. An
// empty value counts as absent, and every parameter may appear once.
//
// It returns a *[ValidationError] keyed by parameter, listing every
// problem at once:
//   - an unknown parameter or action;
//   - a malformed id or date;
//   - dateFrom after dateTo;
//   - a bad limit;
//   - a cursor that is forged or was issued for other filters.
func ReadAuditQuery(v url.Values, cursors *Cursors, orgID uuid.UUID) (AuditFilter, error) {
	var (
		f    AuditFilter
		errs ValidationError
	)
	q := newListQuery(v, AuditQueryParams, &errs)
	if s, ok := q.one("action"); ok {
		if f.Action = AuditAction(s); !slices.Contains(AuditActions, f.Action) {
			errs.Add("action", "must be one of %s", joinActions())
		}
	}
	if s, ok := q.one("actorId"); ok {
		f.ActorID = parseUUID(&errs, "actorId", s)
	}
	if s, ok := q.one("targetId"); ok {
		f.TargetID = parseUUID(&errs, "targetId", s)
	}
	if s, ok := q.one("dateFrom"); ok {
		f.From = parseDate(&errs, "dateFrom", s)
	}
	if s, ok := q.one("dateTo"); ok {
		f.To = parseDate(&errs, "dateTo", s)
	}
	if f.From != nil && f.To != nil && f.From.After(*f.To) {
		errs.Add("dateFrom", "must not be after dateTo")
	}
	f.Limit = q.limit()
	f.After = openListCursor(q, cursors, CursorAudit, f.Digest(orgID), DecodeAuditKey)
	return f, errs.Err()
}

func joinActions() string {
	s := make([]string, len(AuditActions))
	for i, a := range AuditActions {
		s[i] = string(a)
	}
	return strings.Join(s, ", ")
}

package gatehouse

import (
	"errors"
	"net/url"
	"slices"
	"strings"

	"github.com/google/uuid"
)

// AuditQueryParams lists the query parameters ReadAuditQuery reads.
var AuditQueryParams = []string{"action", "actorId", "targetId", "dateFrom", "dateTo", paramLimit, paramCursor}

// ReadAuditQuery parses the query of an audit log list (GET /audit-log,
// the dashboard's Audit log, the CLI) and opens its cursor for orgID. An
// empty value counts as absent and every parameter may appear once. It
// returns a *ValidationError keyed by parameter listing every problem at
// once: an unknown parameter or action, a malformed id or date, dateFrom
// after dateTo, a bad limit, or a cursor that is forged or was issued for
// other filters.
func ReadAuditQuery(v url.Values, cursors *Cursors, orgID uuid.UUID) (AuditFilter, error) {
	var (
		f    AuditFilter
		errs ValidationError
	)
	one := func(name string) (string, bool) {
		vals := slices.DeleteFunc(slices.Clone(v[name]), func(s string) bool { return s == "" })
		if len(vals) > 1 {
			errs.Add(name, "must be given at most once")
			return "", false
		}
		return strings.Join(vals, ""), len(vals) == 1
	}
	for name := range v {
		if !slices.Contains(AuditQueryParams, name) {
			errs.Add(Redact(name), "is not a parameter of this endpoint (known: %s)", strings.Join(AuditQueryParams, ", "))
		}
	}
	if s, ok := one("action"); ok {
		if f.Action = AuditAction(s); !slices.Contains(AuditActions, f.Action) {
			errs.Add("action", "must be one of %s", joinActions())
		}
	}
	if s, ok := one("actorId"); ok {
		f.ActorID = parseUUID(&errs, "actorId", s)
	}
	if s, ok := one("targetId"); ok {
		f.TargetID = parseUUID(&errs, "targetId", s)
	}
	if s, ok := one("dateFrom"); ok {
		f.From = parseDate(&errs, "dateFrom", s)
	}
	if s, ok := one("dateTo"); ok {
		f.To = parseDate(&errs, "dateTo", s)
	}
	if f.From != nil && f.To != nil && f.From.After(*f.To) {
		errs.Add("dateFrom", "must not be after dateTo")
	}
	f.Limit = parseLimit(&errs, v)
	if s, ok := one(paramCursor); ok && len(errs.Issues) == 0 {
		b, err := cursors.Open(s, CursorAudit, f.Digest(orgID))
		if err == nil {
			var key AuditKey
			key, err = DecodeAuditKey(b)
			f.After = &key
		}
		if err != nil {
			errs.Add(paramCursor, "%s", err.Error())
		}
	} else if ok {
		// With other problems the filters are not known; a forged cursor
		// can still be told.
		if _, err := cursors.Open(s, CursorAudit, f.Digest(orgID)); errors.Is(err, ErrCursorInvalid) {
			errs.Add(paramCursor, "%s", err.Error())
		}
	}
	return f, errs.Err()
}

func joinActions() string {
	s := make([]string, len(AuditActions))
	for i, a := range AuditActions {
		s[i] = string(a)
	}
	return strings.Join(s, ", ")
}

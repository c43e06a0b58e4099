// Package httperror is the one table from Gatehouse's errors to HTTP
// answers. The API answers every error with it; the dashboard answers a
// failed operation with the same status, as a page for browsers and as
// the same JSON envelope for any other client.
package httperror

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/gatehouse/gatehouse"
)

// Body is the JSON of every error answer.
type Body struct {
	Error     string              `json:"error"`
	Code      string              `json:"code"`
	RequestID string              `json:"requestId"`
	Issues    map[string][]string `json:"issues,omitempty"`
}

// Answer is how an error is answered.
type Answer struct {
	Status  int
	Code    string
	Message string
	Issues  map[string][]string
	// Internal: a bug, not the client's doing; the detail belongs in the log.
	Internal bool
}

// StatusError is an error with its own status and code, for outcomes that
// have no domain error value (401, 413, …).
type StatusError struct {
	Status  int
	Code    string
	Message string
}

func (e *StatusError) Error() string { return e.Message }

// Errorf returns a *StatusError.
func Errorf(status int, code, format string, args ...any) error {
	return &StatusError{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// StatusClientClosed is nginx's status for a request the client abandoned.
const StatusClientClosed = 499

// table maps the domain's error values to statuses, first match wins.
var table = []struct {
	err     error
	status  int
	code    string
	message string
}{
	{gatehouse.ErrInvalid, http.StatusBadRequest, "validation_failed", "the request has invalid parameters; see issues"},
	// Before ErrForbidden, which it wraps: a key's limit to what it may
	// change, not a role's.
	{gatehouse.ErrKeyNotChangeable, http.StatusForbidden, "key_not_changeable",
		"an API key changes the rate of neither itself nor a key with keys:write; change it from the dashboard or the CLI"},
	// Before ErrForbidden, which it wraps: the key's or the role's
	// locations, not its scopes or its role.
	{gatehouse.ErrOutsideReach, http.StatusForbidden, "outside_locations",
		"this key or role is limited to locations, and this concerns the whole organization or more than its locations"},
	{gatehouse.ErrForbidden, http.StatusForbidden, "forbidden", "your role does not allow this"},
	// Before ErrNotFound, which it wraps: a game's setup to fix, not a
	// record that went away.
	{gatehouse.ErrUnknownUniverse, http.StatusNotFound, "universe_not_found",
		"no location of your organization names this universe: set the universeId of a location (dashboard or CLI) before its servers sync"},
	{gatehouse.ErrNotFound, http.StatusNotFound, "not_found", "not found"},
	{gatehouse.ErrUniverseFull, http.StatusConflict, "universe_full",
		"the universe would hold more than 1000 access points; remove some, or use another universe"},
	{gatehouse.ErrUniverseTooLarge, http.StatusRequestEntityTooLarge, "universe_policies_too_large",
		"the universe's policies would be over 4 MiB together; make them smaller, or spread the access points over universes"},
	// Before ErrConflict, which it wraps: a cap of the organization,
	// which servers forgotten free.
	{gatehouse.ErrTooManyServers, http.StatusConflict, "too_many_servers", fmt.Sprintf(
		"your organization holds %d game servers, or %d players on them: a new server is refused until servers unseen for %d minutes are forgotten; servers already syncing go on",
		gatehouse.MaxOrgServers, gatehouse.MaxOrgPlayers, int(gatehouse.ServerForgetAfter.Minutes()))},
	// Before ErrConflict, which it wraps: an incident in progress, which
	// only a release ends.
	{gatehouse.ErrLockdownActive, http.StatusConflict, "lockdown_active",
		"a lockdown covers this access point: no unlock opens it until the lockdown is released (POST /lockdowns/{id}/release)"},
	{gatehouse.ErrConflict, http.StatusConflict, "conflict", "the record conflicts with an existing one"},
	// Before ErrUnavailable, which it wraps: the organization's own load,
	// not an outage, so a 429 with Retry-After like the key's rate limit.
	{gatehouse.ErrBusy, http.StatusTooManyRequests, "rate_limited", "too many requests of this organization are being served at once; retry shortly"},
	{gatehouse.ErrTooMany, http.StatusTooManyRequests, "rate_limited", "too many attempts; retry later"},
	{gatehouse.ErrUnreadable, http.StatusInternalServerError, "record_unreadable",
		"a stored record this request needs cannot be read; replacing it repairs it (a policy: PUT /access-points/{id}/policy)"},
	{gatehouse.ErrUnavailable, http.StatusServiceUnavailable, "unavailable", "the service cannot reach its database; retry shortly"},
	{context.DeadlineExceeded, http.StatusServiceUnavailable, "unavailable", "the request took too long; retry shortly"},
	// The client went away mid-request; nobody reads this answer, and it is
	// no server error. 499 is the status proxies log for it.
	{context.Canceled, StatusClientClosed, "client_closed_request", "the client closed the request"},
}

// For returns the answer to err. An error that is not in the table is a
// bug: a 500 with a generic message, marked Internal.
func For(err error) Answer {
	var se *StatusError
	var ve *gatehouse.ValidationError
	var ce *gatehouse.ConflictError
	var sc *gatehouse.ScopeError
	var st *gatehouse.StateError
	switch {
	case errors.As(err, &sc):
		return Answer{Status: http.StatusForbidden, Code: "insufficient_scope", Message: sc.Error()}
	case errors.As(err, &st):
		// The record's state, in a sentence that says what to do.
		return Answer{Status: http.StatusConflict, Code: "conflict", Message: st.Message}
	case errors.As(err, &ce):
		return Answer{Status: http.StatusConflict, Code: "conflict", Message: ce.Error(),
			Issues: map[string][]string{ce.Field: {ce.Message}}}
	case errors.As(err, &se):
		return Answer{Status: se.Status, Code: se.Code, Message: se.Message}
	case errors.As(err, &ve):
		return Answer{Status: http.StatusBadRequest, Code: "validation_failed",
			Message: "the request has invalid parameters; see issues", Issues: ve.Issues}
	}
	for _, row := range table {
		if errors.Is(err, row.err) {
			return Answer{Status: row.status, Code: row.code, Message: row.message}
		}
	}
	return Answer{Status: http.StatusInternalServerError, Code: "internal_error",
		Message: "internal error; quote the request id when reporting it", Internal: true}
}

// codes are the codes of answers that have only a status (the dashboard's
// own pages: a form that expired, a page that does not exist).
var codes = map[int]string{
	http.StatusBadRequest: "validation_failed", http.StatusUnauthorized: "unauthenticated",
	http.StatusForbidden: "forbidden", http.StatusNotFound: "not_found", http.StatusConflict: "conflict",
	http.StatusTooManyRequests: "rate_limited", http.StatusInternalServerError: "internal_error",
	http.StatusServiceUnavailable: "unavailable",
}

// OfStatus is the answer with status and message that no error value made.
func OfStatus(status int, message string) Answer {
	code, ok := codes[status]
	if !ok {
		code = "error"
	}
	return Answer{Status: status, Code: code, Message: message}
}

// busyRetrySeconds is the Retry-After of a 429 that sets none itself: a
// turn frees when one of the organization's reads ends, well within a
// second. unavailableRetrySeconds is the Retry-After of a 503: outages of
// the database last seconds, and clients that honour it come back
// without hammering it.
const (
	busyRetrySeconds        = "1"
	unavailableRetrySeconds = "2"
)

// SetRetryAfter sets the Retry-After of a 429 (unless the handler has)
// and of a 503.
func SetRetryAfter(h http.Header, status int) {
	switch {
	case status == http.StatusTooManyRequests && h.Get("Retry-After") == "":
		h.Set("Retry-After", busyRetrySeconds)
	case status == http.StatusServiceUnavailable:
		h.Set("Retry-After", unavailableRetrySeconds)
	}
}

// WriteJSON answers with a's JSON envelope. Its message may quote the
// request (a method, a path, a JSON error): a key pasted there is cut to
// its prefix. Issues are cut at the source.
func WriteJSON(w http.ResponseWriter, requestID string, a Answer) {
	SetRetryAfter(w.Header(), a.Status)
	body := Body{Error: gatehouse.Redact(a.Message), Code: a.Code, RequestID: requestID, Issues: a.Issues}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.Status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(body) // a failed write means the client left; nothing to tell it
}

package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/gatehouse/gatehouse"
)

// apiError is the body of every error response.
type apiError struct {
	Error     string              `json:"error"`
	Code      string              `json:"code"`
	RequestID string              `json:"requestId"`
	Issues    map[string][]string `json:"issues,omitempty"`
}

// statusError is an error with its own status and code, for outcomes that
// have no domain error value (401, 413, …).
type statusError struct {
	status  int
	code    string
	message string
}

func (e *statusError) Error() string { return e.message }

func errorf(status int, code, format string, args ...any) error {
	return &statusError{status: status, code: code, message: fmt.Sprintf(format, args...)}
}

// errorTable maps the domain's error values to statuses, first match wins.
var errorTable = []struct {
	err     error
	status  int
	code    string
	message string
}{
	{gatehouse.ErrInvalid, http.StatusBadRequest, "validation_failed", "the request has invalid parameters; see issues"},
	{gatehouse.ErrNotFound, http.StatusNotFound, "not_found", "not found"},
	{gatehouse.ErrConflict, http.StatusConflict, "conflict", "the record conflicts with an existing one"},
	// Before ErrUnavailable, which it wraps: the organization's own load,
	// not an outage, so a 429 with Retry-After like the key's rate limit.
	{gatehouse.ErrBusy, http.StatusTooManyRequests, "rate_limited", "too many requests of this organization are being served at once; retry shortly"},
	{gatehouse.ErrUnavailable, http.StatusServiceUnavailable, "unavailable", "the service cannot reach its database; retry shortly"},
	{context.DeadlineExceeded, http.StatusServiceUnavailable, "unavailable", "the request took too long; retry shortly"},
	// The client went away mid-request; nobody reads this answer, and it is
	// no server error. 499 is the status proxies log for it.
	{context.Canceled, statusClientClosed, "client_closed_request", "the client closed the request"},
}

// statusClientClosed is nginx's status for a request the client abandoned.
const statusClientClosed = 499

// busyRetrySeconds is the Retry-After of a 429 for ErrBusy: a turn
// frees when one of the organization's reads ends, well within a second.
const busyRetrySeconds = "1"

// unavailableRetrySeconds is the Retry-After of a 503.
const unavailableRetrySeconds = "2"

// writeError answers with the JSON error for err. Errors that are not in
// the table are bugs: the client gets a generic 500 and the log the detail.
func (s *server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	body := apiError{RequestID: requestID(r.Context())}
	status := http.StatusInternalServerError
	var se *statusError
	var ve *gatehouse.ValidationError
	switch {
	case errors.As(err, &se):
		status, body.Code, body.Error = se.status, se.code, se.message
	case errors.As(err, &ve):
		status, body.Code, body.Error, body.Issues = http.StatusBadRequest, "validation_failed", "the request has invalid parameters; see issues", ve.Issues
	default:
		body.Code, body.Error = "internal_error", "internal error; quote the request id when reporting it"
		for _, row := range errorTable {
			if errors.Is(err, row.err) {
				status, body.Code, body.Error = row.status, row.code, row.message
				break
			}
		}
	}
	// Messages may quote the request (a method, a path, a JSON error); a
	// key pasted there is cut to its prefix. Issues are cut at the source.
	body.Error = gatehouse.Redact(body.Error)
	if status == http.StatusTooManyRequests && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", busyRetrySeconds)
	}
	if status == http.StatusServiceUnavailable {
		// Outages of the database last seconds; clients that honour this
		// come back without hammering it.
		w.Header().Set("Retry-After", unavailableRetrySeconds)
	}
	if status >= 500 && status != statusClientClosed {
		s.Logger.LogAttrs(r.Context(), slog.LevelError, "request failed",
			slog.String("requestId", body.RequestID), slog.String("error", err.Error()))
	}
	writeJSON(w, status, body)
}

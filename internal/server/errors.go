package server

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/httperror"
)

// apiError is the body of every error response.
type apiError = httperror.Body

// errorf returns an error with its own status and code, for outcomes that
// have no domain error value (401, 413, …).
func errorf(status int, code, format string, args ...any) error {
	return httperror.Errorf(status, code, format, args...)
}

// statusClientClosed is nginx's status for a request the client abandoned.
const statusClientClosed = httperror.StatusClientClosed

// writeError answers with the JSON error for err, from the one table of
// internal/httperror. Errors that are not in the table are bugs: the
// client gets a generic 500 and the log the detail.
func (s *server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	a := httperror.For(err)
	id := requestID(r.Context())
	if sc := (*gatehouse.ScopeError)(nil); errors.As(err, &sc) {
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer realm="gatehouse", error="insufficient_scope", scope=%q`, sc.Scope))
	}
	if a.Status >= 500 && a.Status != statusClientClosed {
		s.Logger.LogAttrs(r.Context(), slog.LevelError, "request failed",
			slog.String("requestId", id), slog.String("error", err.Error()))
	}
	httperror.WriteJSON(w, id, a)
}

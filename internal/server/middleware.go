package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
	"github.com/gatehouse/gatehouse/internal/requestid"
)

// requestInfo travels with a request so that the access log, written after
// the handler, knows who the caller was.
type requestInfo struct {
	id        string
	orgID     string
	keyPrefix string
}

type infoKey struct{}

func info(ctx context.Context) *requestInfo {
	if ri, ok := ctx.Value(infoKey{}).(*requestInfo); ok {
		return ri
	}
	return &requestInfo{}
}

func requestID(ctx context.Context) string { return info(ctx).id }

// withRequestID gives every request an id, echoed in X-Request-Id and
// written in every error body and in every log line logged with the
// request's context (see requestid.Logger). A sane id from a proxy is kept
// so one id follows a request across systems; any other, a key pasted
// into the header among them, is replaced (requestid.FromHeader).
func (s *server) withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := requestid.FromHeader(r.Header.Get(requestid.Header))
		w.Header().Set(requestid.Header, id)
		if strings.HasPrefix(r.URL.Path, "/api/") {
			w.Header().Set("Cache-Control", "no-store")
		}
		ri := &requestInfo{id: id}
		ctx := requestid.NewContext(context.WithValue(r.Context(), infoKey{}, ri), id)
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// statusRecorder remembers the status a handler wrote.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (w *statusRecorder) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusRecorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// observe writes one access-log line and the request metrics per request.
// It logs the path but never the query string or any header, and cuts
// anything key-shaped in the method and path to its display prefix: a key
// pasted into the wrong place must not reach the log.
//
// A response that did not end as a whole is logged as cut, at warning
// level with the attribute cut saying why, and counted in
// gatehouse_http_responses_cut_total: "aborted" when the handler gave up
// mid-response (http.ErrAbortHandler, as an export whose database failed
// does), "shutdown" when the drain's deadline ended it (ErrShutdown).
func (s *server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		defer func() {
			v := recover()
			cut := ""
			switch {
			case errors.Is(context.Cause(r.Context()), ErrShutdown):
				cut = "shutdown"
			case v != nil: // only http.ErrAbortHandler gets past recoverPanics
				cut = "aborted"
			}
			s.logRequest(r, rec, time.Since(start), cut)
			if v != nil {
				panic(v)
			}
		}()
		next.ServeHTTP(rec, r)
	})
}

// ErrShutdown is the cause a server's base context is cancelled with when
// a graceful shutdown's drain runs out of time: requests still running
// then are cut, and their access-log lines say so.
var ErrShutdown = errors.New("cut by shutdown: the drain's deadline passed")

func (s *server) logRequest(r *http.Request, rec *statusRecorder, elapsed time.Duration, cut string) {
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	route := r.Pattern // set by the mux on this same request
	if route == "" || route == "/" {
		route = "unmatched"
	}
	ri := info(r.Context())
	s.Metrics.observe(route, rec.status, elapsed)
	level := slog.LevelInfo
	if rec.status >= 500 && rec.status != statusClientClosed {
		level = slog.LevelError
	}
	attrs := []slog.Attr{
		slog.String("requestId", ri.id),
		slog.String("method", gatehouse.Redact(r.Method)),
		slog.String("path", loggedPath(r, route)),
		slog.String("route", route),
		slog.Int("status", rec.status),
		slog.Float64("latencyMs", float64(elapsed.Microseconds())/1000),
		slog.String("orgId", ri.orgID),
		slog.String("keyPrefix", ri.keyPrefix),
		slog.String("remoteAddr", ratelimit.ClientAddress(r)),
	}
	if cut != "" {
		s.Metrics.responsesCut.WithLabelValues(route, cut).Inc()
		attrs = append(attrs, slog.String("cut", cut))
		level = max(level, slog.LevelWarn)
	}
	s.Logger.LogAttrs(r.Context(), level, "request", attrs...)
}

// recoverPanics turns a panic in a handler into a JSON 500 and a log line
// with the stack; the server goes on serving.
func (s *server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.Logger.LogAttrs(r.Context(), slog.LevelError, "panic",
				slog.String("requestId", requestID(r.Context())),
				slog.String("panic", fmt.Sprint(v)),
				slog.String("stack", string(debug.Stack())))
			s.writeError(w, r, errors.New("panic"))
		}()
		next.ServeHTTP(w, r)
	})
}

// notFound answers every request no route matched: 405 with Allow when the
// path exists for other methods, 404 otherwise, both as JSON.
func (s *server) notFound(mux *http.ServeMux) http.Handler {
	methods := []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var allow []string
		for _, m := range methods {
			probe := r.Clone(r.Context())
			probe.Method = m
			if _, pattern := mux.Handler(probe); pattern != "/" && pattern != "" {
				allow = append(allow, m)
			}
		}
		if len(allow) > 0 {
			w.Header().Set("Allow", strings.Join(allow, ", "))
			s.writeError(w, r, errorf(http.StatusMethodNotAllowed, "method_not_allowed",
				"%s is not allowed on %s; use %s", r.Method, gatehouse.Redact(r.URL.Path), strings.Join(allow, ", ")))
			return
		}
		s.writeError(w, r, errorf(http.StatusNotFound, "not_found", "no route for %s %s", r.Method, gatehouse.Redact(r.URL.Path)))
	})
}

// ceilSeconds rounds d up to whole seconds.
func ceilSeconds(d time.Duration) string {
	return strconv.FormatInt(int64((d+time.Second-1)/time.Second), 10)
}

// privatePaths are the routes whose path holds what must not reach a log:
// an erased player's id, the erasure webhook's token, an invitation
// link's token (the dashboard's mux names its own route). Their log line
// carries the route pattern instead.
var privatePaths = map[string]bool{
	"GET /dashboard/join/{token}":                               true,
	"POST /dashboard/join/{token}":                              true,
	"DELETE /api/consumer/v1/platform-users/{platformUserId}":   true,
	"POST /api/consumer/v1/integrations/roblox/erasure/{token}": true,
}

// loggedPath is the path a request's log line shows: redacted of keys,
// and only the pattern of a private route.
func loggedPath(r *http.Request, route string) string {
	if privatePaths[route] {
		_, pattern, _ := strings.Cut(route, " ")
		return pattern
	}
	return gatehouse.Redact(r.URL.Path)
}

// Package requestid gives every request an id that follows it into the
// response (X-Request-Id), the error body and every log line written while
// serving it, by the API, the dashboard or anything they call.
package requestid

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"regexp"

	"github.com/gatehouse/gatehouse"
)

// Header is the request and response header that carries the id.
const Header = "X-Request-Id"

// Attr is the name of the log attribute that carries the id.
const Attr = "requestId"

// accepted is the shape of an id a client or proxy may choose: what load
// balancers and tracers send (hexadecimal, UUIDs, dotted or colon-separated
// trace ids), and nothing a log parser, a terminal or a header could misread.
var accepted = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,64}$`)

// FromHeader returns the id a request should carry: sent, when it has the
// accepted shape and does not look like an API key (a key pasted into the
// wrong header must not be echoed in the response, its error body and the
// log); otherwise a new random id. It never fails: a bad id is replaced,
// not refused, so one id still follows the request.
func FromHeader(sent string) string {
	if accepted.MatchString(sent) && gatehouse.Redact(sent) == sent {
		return sent
	}
	return New()
}

// New returns a fresh random id: 24 hexadecimal digits.
func New() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

type contextKey struct{}

// NewContext returns ctx carrying id.
func NewContext(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, contextKey{}, id)
}

// FromContext returns the id ctx carries, or "" outside a request.
func FromContext(ctx context.Context) string {
	id, _ := ctx.Value(contextKey{}).(string)
	return id
}

// Logger returns l writing, on every line logged with a context that
// carries an id (LogAttrs, ErrorContext, …), that id as requestId, unless
// the line names it already. Wrapping twice adds it once.
func Logger(l *slog.Logger) *slog.Logger {
	if _, ok := l.Handler().(handler); ok {
		return l
	}
	return slog.New(handler{l.Handler()})
}

type handler struct{ slog.Handler }

func (h handler) Handle(ctx context.Context, r slog.Record) error {
	if id := FromContext(ctx); id != "" && !hasAttr(r, Attr) {
		r = r.Clone()
		r.AddAttrs(slog.String(Attr, id))
	}
	return h.Handler.Handle(ctx, r)
}

func (h handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return handler{h.Handler.WithAttrs(attrs)}
}

func (h handler) WithGroup(name string) slog.Handler {
	return handler{h.Handler.WithGroup(name)}
}

func hasAttr(r slog.Record, key string) bool {
	found := false
	r.Attrs(func(a slog.Attr) bool {
		found = a.Key == key
		return !found
	})
	return found
}

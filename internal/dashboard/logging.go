package dashboard

import (
	"context"
	"log/slog"
)

// viewerLogs makes every line the dashboard logs with a signed-in
// request's context name the user and the organization, as the API's
// lines name the key: an operator reading a failure knows whose it was.
type viewerLogs struct{ slog.Handler }

func (h viewerLogs) Handle(ctx context.Context, rec slog.Record) error {
	if v, ok := ctx.Value(viewerKey{}).(viewer); ok {
		rec.AddAttrs(slog.String("orgId", v.user.OrgID.String()), slog.String("userId", v.user.ID.String()))
	}
	return h.Handler.Handle(ctx, rec)
}

func (h viewerLogs) WithAttrs(attrs []slog.Attr) slog.Handler {
	return viewerLogs{h.Handler.WithAttrs(attrs)}
}

func (h viewerLogs) WithGroup(name string) slog.Handler { return viewerLogs{h.Handler.WithGroup(name)} }

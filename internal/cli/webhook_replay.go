package cli

import (
	"context"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
)

// runWebhookReplay moves an endpoint's position in the feed to the
// starting point given (--after CURSOR, or --from start: there is no
// default) and prints how many events the replay sends; --dry-run only
// counts them.
func runWebhookReplay(ctx context.Context, e *env) error {
	f := newFlags(e, "webhook replay")
	org := f.String("org", "", "organization id")
	after := f.String("after", "", "a feed cursor (a nextCursor of the feed, or the endpoint's cursor): the events after it are sent again")
	from := f.String("from", "", `"start": the feed's start, every event again`)
	dryRun := f.Bool("dry-run", false, "count the events the replay would send, and change nothing")
	return withService(ctx, f, 1, func(svc *service.Service, args []string) error {
		orgID, err := parseID("org", *org)
		if err != nil {
			return err
		}
		if len(args) != 1 {
			return usagef("webhook replay needs the WEBHOOK_ID")
		}
		id, err := parseID("WEBHOOK_ID", args[0])
		if err != nil {
			return err
		}
		start, err := gatehouse.ParseReplayFrom(*after, *from)
		if err != nil {
			return usagef("webhook replay needs a starting point: --after CURSOR (a nextCursor of the feed, or the endpoint's cursor), or --from start to send every event again (%v)", err)
		}
		if *dryRun {
			n, err := svc.CountWebhookReplay(ctx, orgID, id, start)
			if err != nil {
				return err
			}
			return f.print(map[string]any{"id": id.String(), "replayEvents": n, "dryRun": true},
				"a replay of webhook %s would send %d events (nothing changed)", id, n)
		}
		w, n, err := svc.ReplayWebhook(ctx, orgID, id, start)
		if err != nil {
			return err
		}
		return f.print(struct {
			gatehouse.Webhook
			ReplayEvents int64 `json:"replayEvents"`
		}{w, n}, "webhook %s replays %d events, in order, from cursor %s", w.ID, n, w.Cursor)
	})
}

package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
)

// filterFlags collects repeated --filter NAME=VALUE flags.
type filterFlags map[string]string

func (f filterFlags) String() string { return "" }

func (f filterFlags) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return fmt.Errorf("want NAME=VALUE, e.g. type=ACCESS_DENIED")
	}
	f[name] = value
	return nil
}

// runWebhookCreate makes an endpoint and prints its secret, once.
func runWebhookCreate(ctx context.Context, e *env) error {
	f := newFlags(e, "webhook create")
	org := f.String("org", "", "organization id")
	url := f.String("url", "", "the https URL deliveries are POSTed to")
	description := f.String("description", "", "what the endpoint is for")
	types := f.String("types", string(gatehouse.WebhookEventCreated), "comma-separated: event.created, command.updated")
	filters := filterFlags{}
	f.Var(filters, "filter", "a feed filter the events must match, NAME=VALUE (repeatable): accessPointId, locationId, type, allowed, platformUserId, reason, scope")
	allowPrivate := f.boolSetting("webhooks-allow-private", "GATEHOUSE_WEBHOOKS_ALLOW_PRIVATE",
		"admit http and loopback, private and link-local targets, as serve --webhooks-allow-private does")
	f.actor(asUsage)
	return withWebhookService(ctx, f, allowPrivate, func(svc *service.Service) error {
		orgID, err := parseID("org", *org)
		if err != nil {
			return err
		}
		if ctx, err = f.act(ctx, svc, orgID); err != nil {
			return err
		}
		in := gatehouse.WebhookInput{URL: url, Description: description, Filters: (*map[string]string)(&filters)}
		for t := range strings.SplitSeq(*types, ",") {
			if t = strings.TrimSpace(t); t != "" {
				in.Types = append(in.Types, gatehouse.WebhookType(t))
			}
		}
		w, secret, err := svc.CreateWebhook(ctx, orgID, in)
		if err != nil {
			return err
		}
		return f.print(struct {
			gatehouse.Webhook
			Secret string `json:"secret"`
		}{w, secret}, "created webhook %s → %s\nsecret: %s\n(shown this once: verify each delivery's webhook-signature with it)", w.ID, w.URL, secret)
	})
}

func runWebhookList(ctx context.Context, e *env) error {
	f := newFlags(e, "webhook list")
	org := f.String("org", "", "organization id")
	return withExistingService(ctx, f, 0, func(svc *service.Service, _ []string) error {
		orgID, err := parseID("org", *org)
		if err != nil {
			return err
		}
		hooks, err := svc.ListWebhooks(ctx, orgID)
		if err != nil || *f.json {
			if err == nil {
				err = f.print(hooks, "")
			}
			return err
		}
		for _, w := range hooks {
			state := "enabled"
			switch {
			case !w.Enabled:
				state = "disabled (" + w.DisabledReason + ")"
			case w.Failing != nil:
				state = fmt.Sprintf("failing since %s, %d attempts: %s", gatehouse.FormatTime(time.Time(w.Failing.Since)), w.Failing.Attempts, w.Failing.LastError)
			}
			fmt.Fprintf(e.stdout, "%s  %s  %s  %s\n", w.ID, w.URL, joinWebhookTypes(w.Types), state)
		}
		return nil
	})
}

func runWebhookDelete(ctx context.Context, e *env) error {
	return withOrgAnd(ctx, e, "webhook delete", "WEBHOOK_ID", func(ctx context.Context, f *flags, svc *service.Service, orgID uuid.UUID, arg string) error {
		id, err := parseID("WEBHOOK_ID", arg)
		if err != nil {
			return err
		}
		if err := svc.DeleteWebhook(ctx, orgID, id); err != nil {
			return err
		}
		return f.print(map[string]string{"id": id.String(), "status": "deleted"}, "deleted webhook %s and its delivery log", id)
	})
}

// runWebhookRotateSecret gives an endpoint a new secret and prints it,
// once; the previous one signs too until --overlap has passed.
func runWebhookRotateSecret(ctx context.Context, e *env) error {
	f := newFlags(e, "webhook rotate-secret")
	org := f.String("org", "", "organization id")
	overlap := f.duration("overlap", gatehouse.DefaultWebhookSecretOverlap, "how long the previous secret still signs (0 to 7d)")
	f.actor(asUsage)
	return withService(ctx, f, 1, func(svc *service.Service, args []string) error {
		orgID, err := parseID("org", *org)
		if err != nil {
			return err
		}
		if ctx, err = f.act(ctx, svc, orgID); err != nil {
			return err
		}
		if len(args) != 1 {
			return usagef("webhook rotate-secret needs the WEBHOOK_ID")
		}
		id, err := parseID("WEBHOOK_ID", args[0])
		if err != nil {
			return err
		}
		w, secret, err := svc.RotateWebhookSecret(ctx, orgID, id, overlap)
		if err != nil {
			return err
		}
		until := "now"
		if w.PreviousSecretExpiresAt != nil {
			until = gatehouse.FormatTime(time.Time(*w.PreviousSecretExpiresAt))
		}
		return f.print(struct {
			gatehouse.Webhook
			Secret string `json:"secret"`
		}{w, secret}, "rotated the secret of webhook %s\nsecret: %s\n(shown this once; the previous secret signs too until %s)", w.ID, secret, until)
	})
}

// withWebhookService is withService with the webhook setting of the
// servers the operator runs, so that an endpoint the CLI admits is one
// they deliver to.
func withWebhookService(ctx context.Context, f *flags, allowPrivate *bool, fn func(*service.Service) error) error {
	if _, err := f.parse(0); err != nil {
		return err
	}
	db, err := openFound(ctx, *f.db, f.shardList()...)
	if err != nil {
		return err
	}
	defer db.Close()
	return fn(db.ServiceWith(f.e.now, func(c *service.Config) { c.Webhooks.AllowPrivate = *allowPrivate }))
}

func joinWebhookTypes(types []gatehouse.WebhookType) string {
	s := make([]string, len(types))
	for i, t := range types {
		s[i] = string(t)
	}
	return strings.Join(s, ",")
}

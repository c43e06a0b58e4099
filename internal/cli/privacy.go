package cli

import (
	"context"
	"errors"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
)

// runPrivacyErasureWebhook prints the organization's right-to-erasure
// webhook (the path to append to the server's public address, and the
// secret), setting it up when it has none or with --new: what an admin
// finds on the dashboard's Privacy page, for an operator without one.
func runPrivacyErasureWebhook(ctx context.Context, e *env) error {
	f := newFlags(e, "privacy erasure-webhook")
	org := f.String("org", "", "organization id")
	replace := f.Bool("new", false, "make a new token and secret: the current URL stops working at once")
	f.actor(asUsage)
	return withService(ctx, f, 0, func(svc *service.Service, _ []string) error {
		orgID, err := parseID("org", *org)
		if err != nil {
			return err
		}
		if ctx, err = f.act(ctx, svc, orgID); err != nil {
			return err
		}
		in, err := svc.ErasureWebhook(ctx, orgID)
		if *replace || errors.Is(err, gatehouse.ErrNotFound) {
			in, err = svc.SetUpErasureWebhook(ctx, orgID)
		}
		if err != nil {
			return err
		}
		path := gatehouse.ErasureWebhookPath + in.Token
		return f.print(struct {
			Path   string `json:"path"`
			Secret string `json:"secret"`
		}{path, in.Secret}, "URL:    https://<this server's public address>%s\nsecret: %s\nPaste both into the platform's webhook settings, with the right-to-erasure trigger.", path, in.Secret)
	})
}

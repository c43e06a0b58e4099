package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
)

// keyRecord is how the CLI prints a key: as the API shows it, and with
// Key set only by key create: the raw key is shown once and never again.
type keyRecord struct {
	gatehouse.APIKeyView
	Key string `json:"key,omitempty"`
}

func newKeyRecord(k gatehouse.APIKey, now time.Time) keyRecord {
	return keyRecord{APIKeyView: k.View(now)}
}

func runKeyCreate(ctx context.Context, e *env) error {
	f := newFlags(e, "key create")
	org := f.String("org", "", "organization id")
	name := f.String("name", "", "key name, e.g. warehouse-sync")
	scopes := f.String("scopes", "", "comma-separated scopes: "+gatehouse.JoinScopes(gatehouse.Scopes))
	expiresIn := f.duration("expires-in", 0, "lifetime, e.g. 30d, 1d12h or 720h")
	expiresAt := f.String("expires-at", "", "expiry time, RFC 3339")
	rate := f.String("rate-limit", "", "per-key rate overriding the server's, N/s or N/m")
	locations := f.String("locations", "", locationsUsage+"; a limited key holds only "+gatehouse.JoinScopes(gatehouse.ReachScopes))
	f.actor(asUsage)
	return withService(ctx, f, 0, func(svc *service.Service, _ []string) error {
		orgID, err := parseID("org", *org)
		if err != nil {
			return err
		}
		if ctx, err = f.act(ctx, svc, orgID); err != nil {
			return err
		}
		if err := required("name", *name); err != nil {
			return err
		}
		if err := required("scopes", *scopes); err != nil {
			return err
		}
		sc, err := gatehouse.ParseScopes(*scopes)
		if err != nil {
			return usagef("--scopes: %v", err)
		}
		reach, err := gatehouse.ParseReach("locations", *locations)
		if err != nil {
			return err
		}
		now := gatehouse.Truncate(e.now())
		k := gatehouse.NewAPIKey{OrgID: orgID, Name: *name, Scopes: sc, Locations: reach}
		switch {
		case *expiresIn != 0 && *expiresAt != "":
			return usagef("give --expires-in or --expires-at, not both")
		case *expiresIn < 0:
			return usagef("--expires-in must be positive")
		case *expiresIn > 0:
			k.Lifetime = *expiresIn
		case *expiresAt != "":
			t, err := gatehouse.ParseTime(*expiresAt)
			if err != nil || !t.After(now) {
				return usagef("--expires-at must be a future RFC 3339 time, e.g. 2027-01-01T00:00:00Z, before year 10000 in UTC")
			}
			k.ExpiresAt = &t
		}
		if *rate != "" {
			r, err := gatehouse.ParseRate(*rate)
			if err != nil {
				return usagef("--rate-limit: %v", err)
			}
			k.RateLimit = &r
		}
		created, raw, err := svc.CreateAPIKey(ctx, k)
		if err != nil {
			return err
		}
		rec := newKeyRecord(created, now)
		rec.Key = raw
		return f.print(rec, "created key %s (%s) with scopes %s\n\n  %s\n\nStore it now: it will not be shown again.",
			created.ID, created.Prefix, gatehouse.JoinScopes(created.Scopes), raw)
	})
}

func runKeyList(ctx context.Context, e *env) error {
	f := newFlags(e, "key list")
	org := f.String("org", "", "organization id")
	return withExistingService(ctx, f, 0, func(svc *service.Service, _ []string) error {
		orgID, err := parseID("org", *org)
		if err != nil {
			return err
		}
		keys, err := svc.ListAPIKeys(ctx, orgID)
		if err != nil {
			return err
		}
		now := e.now()
		recs := make([]keyRecord, len(keys))
		for i, k := range keys {
			recs[i] = newKeyRecord(k, now)
		}
		if *f.json {
			return f.print(recs, "")
		}
		soon := 0
		for _, r := range recs {
			marker := ""
			if r.ExpiresSoon {
				marker = "  (expires " + gatehouse.FormatTime(time.Time(*r.ExpiresAt)) + ": replace it)"
				soon++
			}
			if len(r.Locations) > 0 {
				marker += "  (limited to " + gatehouse.Reach(r.Locations).String() + ")"
			}
			fmt.Fprintf(e.stdout, "%s  %s…  %-8s %-40s %s%s\n", r.ID, r.Prefix, r.Status, gatehouse.JoinScopes(r.Scopes), r.Name, marker)
		}
		if soon > 0 {
			fmt.Fprintf(e.stderr, "warning: %d key(s) expire within %d days; create their replacements before then\n",
				soon, int(gatehouse.ExpiryWarning/(24*time.Hour)))
		}
		return nil
	})
}

func runKeyRevoke(ctx context.Context, e *env) error {
	f := newFlags(e, "key revoke")
	f.actor(asUsage)
	return withService(ctx, f, 1, func(svc *service.Service, args []string) error {
		id, err := positionalID(args, "key revoke KEY_ID", "KEY_ID")
		if err != nil {
			return err
		}
		orgID, err := svc.OrgOfAPIKey(ctx, id)
		if err != nil {
			return err
		}
		if ctx, err = f.act(ctx, svc, orgID); err != nil {
			return err
		}
		k, err := svc.RevokeAPIKey(ctx, orgID, id)
		if err != nil {
			return err
		}
		now := e.now()
		return f.print(newKeyRecord(k, now), "revoked key %s (%s)", k.ID, k.Prefix)
	})
}

// runKeySetRate changes a key's rate limit: N/s, N/m, or "default" for
// the server's. Every instance applies it within a second.
func runKeySetRate(ctx context.Context, e *env) error {
	f := newFlags(e, "key set-rate")
	rate := f.String("rate-limit", "", "the key's rate, N/s or N/m, or default for the server's --rate-limit")
	f.actor(asUsage)
	return withService(ctx, f, 1, func(svc *service.Service, args []string) error {
		id, err := positionalID(args, "key set-rate KEY_ID --rate-limit N/s|N/m|default", "KEY_ID")
		if err != nil {
			return err
		}
		if err := required("rate-limit", *rate); err != nil {
			return err
		}
		var r *gatehouse.Rate
		if *rate != "default" {
			parsed, err := gatehouse.ParseRate(*rate)
			if err != nil {
				return usagef("--rate-limit: %v, or default", err)
			}
			r = &parsed
		}
		orgID, err := svc.OrgOfAPIKey(ctx, id)
		if err != nil {
			return err
		}
		if ctx, err = f.act(ctx, svc, orgID); err != nil {
			return err
		}
		k, err := svc.SetAPIKeyRate(ctx, orgID, id, r)
		if err != nil {
			return err
		}
		shown := "the server's default"
		if k.RateLimit != nil {
			shown = k.RateLimit.String()
		}
		return f.print(newKeyRecord(k, e.now()), "key %s (%s) now has rate %s; every instance applies it within a second", k.ID, k.Prefix, shown)
	})
}

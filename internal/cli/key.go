package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
)

// keyRecord is how the CLI prints a key. Key is set only by key create:
// the raw key is shown once and never again.
type keyRecord struct {
	ID         string            `json:"id"`
	Name       string            `json:"name"`
	Prefix     string            `json:"prefix"`
	Scopes     []gatehouse.Scope `json:"scopes"`
	RateLimit  *string           `json:"rateLimit"`
	Status     string            `json:"status"`
	ExpiresAt  *gatehouse.Time   `json:"expiresAt"`
	RevokedAt  *gatehouse.Time   `json:"revokedAt"`
	LastUsedAt *gatehouse.Time   `json:"lastUsedAt"`
	CreatedAt  gatehouse.Time    `json:"createdAt"`
	Key        string            `json:"key,omitempty"`
}

func newKeyRecord(k gatehouse.APIKey, now time.Time) keyRecord {
	r := keyRecord{
		ID: k.ID.String(), Name: k.Name, Prefix: k.Prefix, Scopes: k.Scopes, Status: k.Status(now),
		ExpiresAt: gatehouse.TimePtr(k.ExpiresAt), RevokedAt: gatehouse.TimePtr(k.RevokedAt),
		LastUsedAt: gatehouse.TimePtr(k.LastUsedAt), CreatedAt: gatehouse.Time(k.CreatedAt),
	}
	if k.RateLimit != nil {
		s := k.RateLimit.String()
		r.RateLimit = &s
	}
	return r
}

func runKeyCreate(ctx context.Context, e *env) error {
	f := newFlags(e, "key create")
	org := f.String("org", "", "organization id")
	name := f.String("name", "", "key name, e.g. warehouse-sync")
	scopes := f.String("scopes", "", "comma-separated scopes: "+gatehouse.JoinScopes(gatehouse.Scopes))
	expiresIn := f.duration("expires-in", 0, "lifetime, e.g. 30d, 1d12h or 720h")
	expiresAt := f.String("expires-at", "", "expiry time, RFC 3339")
	rate := f.String("rate-limit", "", "per-key rate overriding the server's, N/s or N/m")
	return withService(ctx, f, 0, func(svc *service.Service, _ []string) error {
		orgID, err := parseID("org", *org)
		if err != nil {
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
		now := gatehouse.Truncate(e.now())
		k := gatehouse.NewAPIKey{OrgID: orgID, Name: *name, Scopes: sc}
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
		for _, r := range recs {
			fmt.Fprintf(e.stdout, "%s  %s…  %-8s %-40s %s\n", r.ID, r.Prefix, r.Status, gatehouse.JoinScopes(r.Scopes), r.Name)
		}
		return nil
	})
}

func runKeyRevoke(ctx context.Context, e *env) error {
	f := newFlags(e, "key revoke")
	return withService(ctx, f, 1, func(svc *service.Service, args []string) error {
		id, err := positionalID(args, "key revoke KEY_ID", "KEY_ID")
		if err != nil {
			return err
		}
		orgID, err := svc.OrgOfAPIKey(ctx, id)
		if err != nil {
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

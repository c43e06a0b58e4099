package shards_test

import (
	"errors"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// TestClaimsPassOverACopyLeftBehind: when the directory places an
// organization elsewhere while its rows stay on a shard (what a move
// leaves when its last commit on the source fails), that shard's webhook
// endpoints and alert rules are not claimed there, so nothing is
// delivered twice; placed back, they are.
func TestClaimsPassOverACopyLeftBehind(t *testing.T) {
	r, mainDSN, _ := openRouter(t)
	o := createOrg(t, r, "Acme") // on the first shard
	now := time.Now().UTC()
	if _, err := r.CreateWebhook(ctx, gatehouse.SystemEntry(gatehouse.AuditWebhookCreated),
		gatehouse.Webhook{ID: gatehouse.NewID(), OrgID: o.ID, URL: "https://hooks.example/a", CreatedAt: gatehouse.Time(now)},
		"", []byte("sealed")); err != nil {
		t.Fatal(err)
	}
	if _, err := r.CreateAlertRule(ctx, gatehouse.SystemEntry(gatehouse.AuditAlertRuleCreated), gatehouse.AlertRule{
		ID: gatehouse.NewID(), OrgID: o.ID, Name: "denials", CooldownSeconds: 300,
		Condition:   gatehouse.AlertCondition{Kind: gatehouse.AlertThreshold, Threshold: 5, WindowSeconds: 60},
		Destination: gatehouse.AlertDestination{Format: gatehouse.AlertDiscord, URL: "https://discord.example/a"},
		CreatedAt:   gatehouse.Time(now), UpdatedAt: gatehouse.Time(now)}, nil); err != nil {
		t.Fatal(err)
	}
	shards := r.Shards()
	home, other := shards[1], shards[2]
	main := openDB(t, mainDSN)
	place := func(shard uuid.UUID, findable bool) {
		t.Helper()
		if err := main.PlaceOrganization(ctx, o.ID, shard); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if _, err := r.FindOrganization(ctx, o.ID); (err == nil) == findable {
				return
			}
			if time.Now().After(deadline) {
				t.Fatal("the router did not hear the directory's change")
			}
		}
	}
	claims := func() (webhook, rule error) {
		_, webhook = r.ClaimWebhook(ctx, "test", now.Add(time.Second), time.Minute)
		_, rule = r.ClaimAlertRule(ctx, "test", now.Add(time.Second), time.Minute)
		return webhook, rule
	}
	place(other.ID, false)
	if w, a := claims(); !errors.Is(w, gatehouse.ErrNotFound) || !errors.Is(a, gatehouse.ErrNotFound) {
		t.Fatalf("placed elsewhere: ClaimWebhook %v, ClaimAlertRule %v; want nothing to claim", w, a)
	}
	place(home.ID, true)
	if w, a := claims(); w != nil || a != nil {
		t.Fatalf("placed back: ClaimWebhook %v, ClaimAlertRule %v; want both claimed", w, a)
	}
}

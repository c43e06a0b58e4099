package client_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/client"
)

// VerifyWebhook accepts a delivery signed with the secret within five
// minutes of now, whichever of several signatures matches (a secret being
// rotated), and refuses a stale one, a missing header, another secret and
// a malformed secret, each with its own error.
func TestVerifyWebhook(t *testing.T) {
	secret, other := gatehouse.NewWebhookSecret(), gatehouse.NewWebhookSecret()
	at := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	body := []byte(`{"type":"event.created","data":{}}`)
	sign := func(secret string) http.Header {
		h, err := gatehouse.SignWebhook(secret, "msg_1", at, body)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	rotated := sign(other)
	rotated.Set("webhook-signature", rotated.Get("webhook-signature")+" "+sign(secret).Get("webhook-signature"))
	noID := sign(secret)
	noID.Del("webhook-id")
	for _, tc := range []struct {
		name   string
		secret string
		h      http.Header
		now    time.Time
		want   error
	}{
		{"signed now", secret, sign(secret), at, nil},
		{"4 min later", secret, sign(secret), at.Add(4 * time.Minute), nil},
		{"two signatures, the second ours", secret, rotated, at, nil},
		{"6 min later", secret, sign(secret), at.Add(6 * time.Minute), client.ErrWebhookTimestamp},
		{"6 min early", secret, sign(secret), at.Add(-6 * time.Minute), client.ErrWebhookTimestamp},
		{"another secret", secret, sign(other), at, client.ErrWebhookSignature},
		{"no webhook-id", secret, noID, at, client.ErrWebhookHeaders},
		{"not a secret", "secret", sign(secret), at, client.ErrWebhookSecret},
	} {
		if err := client.VerifyWebhook(tc.secret, tc.h, body, tc.now); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	if _, err := gatehouse.SignWebhook("whsec_???", "msg_1", at, body); !errors.Is(err, gatehouse.ErrWebhookSecret) {
		t.Errorf("signing with a malformed secret: %v", err)
	}
}

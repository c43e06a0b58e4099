package client

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// WebhookTolerance is how far a delivery's timestamp may be from the
// receiver's clock, either way, for VerifyWebhook to accept it: the
// Standard Webhooks specification's five minutes, which bounds how long a
// captured delivery can be replayed.
const WebhookTolerance = 5 * time.Minute

// Errors of VerifyWebhook.
var (
	ErrWebhookSecret    = errors.New("client: a webhook secret is whsec_ followed by base64")
	ErrWebhookHeaders   = errors.New("client: the delivery lacks webhook-id, webhook-timestamp or webhook-signature")
	ErrWebhookTimestamp = errors.New("client: the delivery's timestamp is too far from now")
	ErrWebhookSignature = errors.New("client: no signature of the delivery matches the secret")
)

// VerifyWebhook checks that a webhook delivery (its headers and its raw
// body, before any JSON decoding) was signed with the endpoint's secret,
// as the Standard Webhooks specification defines, and that its timestamp
// is within WebhookTolerance of now. Compare webhook-id with the ids you
// have handled to drop a repeated delivery: delivery is at least once.
func VerifyWebhook(secret string, h http.Header, body []byte, now time.Time) error {
	enc, ok := strings.CutPrefix(secret, "whsec_")
	if !ok {
		return ErrWebhookSecret
	}
	key, err := base64.StdEncoding.DecodeString(enc)
	if err != nil || len(key) == 0 {
		return ErrWebhookSecret
	}
	id, ts, sigs := h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature")
	if id == "" || ts == "" || sigs == "" {
		return ErrWebhookHeaders
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return ErrWebhookHeaders
	}
	if d := now.Sub(time.Unix(sec, 0)); d > WebhookTolerance || d < -WebhookTolerance {
		return ErrWebhookTimestamp
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id + "." + ts + "."))
	m.Write(body)
	want := m.Sum(nil)
	// Several signatures, space-separated, while a secret is rotated.
	for sig := range strings.FieldsSeq(sigs) {
		version, b64, ok := strings.Cut(sig, ",")
		if !ok || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(b64)
		if err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return ErrWebhookSignature
}

package gatehouse

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// webhookSecretPrefix starts every webhook secret, as the Standard
// Webhooks specification writes them.
const webhookSecretPrefix = "whsec_"

// NewWebhookSecret returns a fresh endpoint secret: "whsec_" and the
// base64 of 32 random bytes, the key of the deliveries' HMAC-SHA256.
func NewWebhookSecret() string {
	key := make([]byte, 32)
	rand.Read(key)
	return webhookSecretPrefix + base64.StdEncoding.EncodeToString(key)
}

// ErrWebhookSecret is returned for a secret that is not "whsec_" and
// base64.
var ErrWebhookSecret = errors.New("a webhook secret is whsec_ followed by base64")

// webhookKey is the HMAC key a secret holds.
func webhookKey(secret string) ([]byte, error) {
	enc, ok := strings.CutPrefix(secret, webhookSecretPrefix)
	if !ok {
		return nil, ErrWebhookSecret
	}
	key, err := base64.StdEncoding.DecodeString(enc)
	if err != nil || len(key) == 0 {
		return nil, ErrWebhookSecret
	}
	return key, nil
}

// SignWebhook returns the headers of a delivery of body, as the Standard
// Webhooks specification defines them: webhook-id (msgID, the same for
// every attempt of one delivery, so that receivers can drop repeats),
// webhook-timestamp (at, in Unix seconds) and webhook-signature ("v1,"
// and the base64 HMAC-SHA256, keyed by the secret, of
// "msgID.timestamp.body"). secret may be several secrets separated by
// spaces, as during a rotation: each gives one signature, space-separated
// as the specification allows, so a receiver verifying with either
// accepts.
func SignWebhook(secret, msgID string, at time.Time, body []byte) (http.Header, error) {
	ts := strconv.FormatInt(at.Unix(), 10)
	var sigs []string
	for s := range strings.FieldsSeq(secret) {
		key, err := webhookKey(s)
		if err != nil {
			return nil, err
		}
		sigs = append(sigs, "v1,"+base64.StdEncoding.EncodeToString(webhookMAC(key, msgID, ts, body)))
	}
	if len(sigs) == 0 {
		return nil, ErrWebhookSecret
	}
	h := http.Header{}
	h.Set("webhook-id", msgID)
	h.Set("webhook-timestamp", ts)
	h.Set("webhook-signature", strings.Join(sigs, " "))
	return h, nil
}

// SigningSecrets are the secrets that sign an endpoint's deliveries at
// now, from its opened sealed secrets: the current one, and the previous
// one until its overlap ends.
func SigningSecrets(opened string, w Webhook, now time.Time) string {
	current, previous, _ := strings.Cut(opened, " ")
	if previous != "" && w.PreviousSecretExpiresAt != nil && now.Before(time.Time(*w.PreviousSecretExpiresAt)) {
		return current + " " + previous
	}
	return current
}

func webhookMAC(key []byte, msgID, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(msgID + "." + ts + "."))
	m.Write(body)
	return m.Sum(nil)
}

package gatehouse_test

import (
	"crypto/sha256"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

func TestGenerateKeyHasDocumentedShape(t *testing.T) {
	pattern := regexp.MustCompile(`^` + gatehouse.KeyPattern + `$`)
	seen := map[string]bool{}
	for range 200 {
		raw, prefix, hash := gatehouse.GenerateKey()
		if len(raw) != 41 || !pattern.MatchString(raw) {
			t.Fatalf("key %q does not match %s", raw, gatehouse.KeyPattern)
		}
		if prefix != raw[:11] || !strings.HasPrefix(prefix, "gk_") {
			t.Fatalf("prefix %q is not gk_ and the first 8 random characters of the key", prefix)
		}
		if hash != sha256.Sum256([]byte(raw)) {
			t.Fatal("hash is not the SHA-256 of the whole key")
		}
		got, err := gatehouse.ParseKey(raw)
		if err != nil || got != hash {
			t.Fatalf("ParseKey(generated) = %x, %v", got, err)
		}
		if seen[raw] {
			t.Fatal("duplicate key")
		}
		seen[raw] = true
	}
}

func TestParseKeyRejectsWrongShapeOrChecksum(t *testing.T) {
	raw, _, _ := gatehouse.GenerateKey()
	flip := func(i int) string {
		b := []byte(raw)
		if b[i] == 'a' {
			b[i] = 'b'
		} else {
			b[i] = 'a'
		}
		return string(b)
	}
	for name, token := range map[string]string{
		"empty":            "",
		"prefix only":      "gk_",
		"wrong prefix":     "gh_" + raw[3:],
		"upper prefix":     "GK_" + raw[3:],
		"too short":        raw[:40],
		"too long":         raw + "0",
		"random changed":   flip(5),
		"checksum changed": flip(40),
		"non-base62":       raw[:10] + "-" + raw[11:],
		"space inside":     raw[:10] + " " + raw[11:],
	} {
		if _, err := gatehouse.ParseKey(token); err != gatehouse.ErrMalformedKey {
			t.Errorf("%s: ParseKey = %v, want ErrMalformedKey", name, err)
		}
	}
}

func TestAPIKeyStatus(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	past, future := now.Add(-time.Second), now.Add(time.Second)
	for _, tc := range []struct {
		name string
		key  gatehouse.APIKey
		want string
	}{
		{"active", gatehouse.APIKey{}, "active"},
		{"expires later", gatehouse.APIKey{ExpiresAt: &future}, "active"},
		{"expired", gatehouse.APIKey{ExpiresAt: &past}, "expired"},
		{"expires now", gatehouse.APIKey{ExpiresAt: &now}, "expired"},
		{"revoked", gatehouse.APIKey{RevokedAt: &past}, "revoked"},
		{"revoked and expired", gatehouse.APIKey{RevokedAt: &past, ExpiresAt: &past}, "revoked"},
	} {
		if got := tc.key.Status(now); got != tc.want {
			t.Errorf("%s: Status = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestParseScopes(t *testing.T) {
	got, err := gatehouse.ParseScopes("events:read, locations:read,events:read")
	if err != nil || gatehouse.JoinScopes(got) != "events:read,locations:read" {
		t.Fatalf("ParseScopes = %v, %v", got, err)
	}
	// A game server's key, as the contract's preset makes it.
	if got, err := gatehouse.ParseScopes("server,events:write"); err != nil || gatehouse.JoinScopes(got) != "server,events:write" {
		t.Errorf("ParseScopes(server,events:write) = %v, %v", got, err)
	}
	for _, bad := range []string{"", " , ", "events:delete", "events:read,admin"} {
		if _, err := gatehouse.ParseScopes(bad); err == nil {
			t.Errorf("ParseScopes(%q) succeeded", bad)
		}
	}
}

func TestParseRate(t *testing.T) {
	for in, want := range map[string]gatehouse.Rate{
		"20/s": {20, time.Second}, "5/m": {5, time.Minute}, " 1/s ": {1, time.Second},
	} {
		got, err := gatehouse.ParseRate(in)
		if err != nil || got != want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "20", "0/s", "-1/s", "20/h", "x/s", "20/ s"} {
		if _, err := gatehouse.ParseRate(bad); err == nil {
			t.Errorf("ParseRate(%q) succeeded", bad)
		}
	}
}

func TestRedactKeepsOnlyTheDisplayPrefix(t *testing.T) {
	raw, prefix, _ := gatehouse.GenerateKey()
	for _, s := range []string{raw, "/nope/" + raw + "/x", raw[:30], raw[:40] + "!", "a " + raw + " b " + raw} {
		got := gatehouse.Redact(s)
		if strings.Contains(got, raw[:20]) || !strings.Contains(got, prefix+"…") {
			t.Errorf("Redact(%q) = %q", s, got)
		}
	}
	// A key may begin inside the characters of something key-like before
	// it ("gk_000000gk_…"): its secret part goes too.
	if got := gatehouse.Redact("gk_000000" + raw); strings.Contains(got, raw[20:]) || got != "gk_000000gk…"+prefix+"…" {
		t.Errorf("Redact of overlapping keys = %q", got)
	}
	if got := gatehouse.Redact("/api/consumer/v1/events"); got != "/api/consumer/v1/events" {
		t.Errorf("Redact changed a plain path: %q", got)
	}
}

// TestKeyExpiresSoon: an active key is flagged from ExpiryWarning before
// its expiry; an expired, revoked or never-expiring one is not.
func TestKeyExpiresSoon(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { t := now.Add(d); return &t }
	for _, c := range []struct {
		name string
		k    gatehouse.APIKey
		want bool
	}{
		{"never expires", gatehouse.APIKey{}, false},
		{"in 3 days", gatehouse.APIKey{ExpiresAt: at(72 * time.Hour)}, true},
		{"in exactly 14 days", gatehouse.APIKey{ExpiresAt: at(gatehouse.ExpiryWarning)}, true},
		{"in 15 days", gatehouse.APIKey{ExpiresAt: at(gatehouse.ExpiryWarning + 24*time.Hour)}, false},
		{"expired", gatehouse.APIKey{ExpiresAt: at(0)}, false},
		{"revoked", gatehouse.APIKey{ExpiresAt: at(time.Hour), RevokedAt: at(-time.Hour)}, false},
	} {
		if got := c.k.ExpiresSoon(now); got != c.want {
			t.Errorf("%s: ExpiresSoon = %v, want %v", c.name, got, c.want)
		}
	}
}

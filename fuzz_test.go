package gatehouse

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// The fuzz targets: each input must give a result or a clear error, never
// a panic, and what is accepted must satisfy the rules. .ci/run fuzzes
// each briefly; the f.Add inputs are the seed corpus.

func FuzzParseEventQuery(f *testing.F) {
	for _, s := range []string{
		"", "limit=50", "limit=0", "limit=501", "limit=1e3", "allowed=denied&reason=OUTSIDE_SCHEDULE",
		"type=ACCESS_DENIED,REMOTE_UNLOCK&type=FOO", "type=,,,", "dateFrom=2026-11-01&dateTo=2026-11-08T12:00:00Z",
		"dateFrom=2020-01-01&dateTo=2026-01-01", "dateFrom=2026-12-01&dateTo=2026-11-01", "q=%25_%27%22",
		"q=01a206f0-47fd-70ab-8d5c-d43236d0126c", "accessPointId=not-a-uuid", "scope=PLAYER&scope=SERVER",
		"platformUserId=" + strings.Repeat("9", 129), "q=\xff\xfe", "reason=lower", "cursor=AAAA",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := url.ParseQuery(raw)
		if err != nil {
			return // the server answers 400 invalid_query before parsing
		}
		q, err := ParseEventQuery(v)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || len(ve.Issues) == 0 {
				t.Fatalf("%q: error %v is not a validation error with issues", raw, err)
			}
			return
		}
		f := q.Filter
		if f.Limit < 1 || f.Limit > MaxLimit {
			t.Fatalf("%q: limit %d", raw, f.Limit)
		}
		if f.From != nil && f.To != nil && (f.From.After(*f.To) || f.To.Sub(*f.From) > MaxRange) {
			t.Fatalf("%q: window %v – %v", raw, f.From, f.To)
		}
	})
}

func FuzzOpenCursor(f *testing.F) {
	c := NewCursors([]byte("fuzz secret, 32 bytes long......"))
	digest := [8]byte{1, 2, 3, 4, 5, 6, 7, 8}
	key := EventKey{OccurredAt: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC), ID: NewID()}
	f.Add(c.Sign(1, digest, EncodeEventKey(key)))
	f.Add("")
	f.Add("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
	f.Add("!!!not base64")
	f.Fuzz(func(t *testing.T, s string) {
		pos, err := c.Open(s, 1, digest)
		if err != nil {
			return
		}
		// Only a cursor this service signed opens, and its position decodes.
		k, err := DecodeEventKey(pos)
		if err != nil {
			t.Fatalf("%q opened but its position does not decode: %v", s, err)
		}
		if !bytes.Equal(EncodeEventKey(k), pos) {
			t.Fatalf("%q: position does not round-trip", s)
		}
	})
}

var wholeKey = regexp.MustCompile(`^gk_[0-9A-Za-z]{38}$`)

func FuzzParseKey(f *testing.F) {
	raw, _, _ := GenerateKey()
	f.Add(raw)
	f.Add(raw[:len(raw)-1] + "0")
	f.Add("gk_")
	f.Add("gk_" + strings.Repeat("z", 38))
	f.Add("Bearer " + raw)
	f.Fuzz(func(t *testing.T, s string) {
		if _, err := ParseKey(s); err == nil && !wholeKey.MatchString(s) {
			t.Fatalf("%q was accepted but does not look like a key", s)
		}
		// Every key's secret part goes: the text may hold the same
		// characters elsewhere, outside a key, and those stay.
		if r := Redact(s); len(s) >= KeyLen && strings.Contains(s, "gk_") {
			for i := 0; i+KeyLen <= len(s); i++ {
				secret := s[i+11 : i+KeyLen]
				if _, err := ParseKey(s[i : i+KeyLen]); err == nil && strings.Count(r, secret) >= strings.Count(s, secret) {
					t.Fatalf("Redact(%q) = %q keeps a key's secret part", s, r)
				}
			}
		}
	})
}

func FuzzDecodeIngestEvent(f *testing.F) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	for _, s := range []string{
		`{"type":"ACCESS_DENIED","reason":"OUTSIDE_SCHEDULE","occurredAt":"2026-11-20T11:00:00Z","accessPointId":"01a206f0-47fc-799a-bda8-edf8088752e0","platformUserId":"111"}`,
		`{"type":"REMOTE_UNLOCK","scope":"SERVER","serverJobId":"job","occurredAt":"2026-11-20T11:00:00.123+02:00","accessPointId":"01a206f0-47fc-799a-bda8-edf8088752e0","command":{"id":"01a206f0-47fd-70b2-aa94-712695e55978","status":"DELIVERED"}}`,
		`{"type":"ACCESS_GRANTED","allowed":"denied","occurredAt":"2027-01-01T00:00:00Z","accessPointId":"x"}`,
		`{"id":null,"type":null}`, `[]`, `null`, `{"type":"ACCESS_GRANTED","type":"ACCESS_DENIED"}`, `{"unknown":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := DecodeIngestEvent(data, now)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || len(ve.Issues) == 0 {
				t.Fatalf("%q: error %v is not a validation error with issues", data, err)
			}
			return
		}
		switch ev.Type {
		case EventAccessGranted, EventAccessDenied, EventRemoteUnlock:
		default:
			t.Fatalf("%q: accepted type %q", data, ev.Type)
		}
		if ev.OccurredAt.After(now.Add(time.Hour)) {
			t.Fatalf("%q: accepted occurredAt %v, over an hour ahead", data, ev.OccurredAt)
		}
		if (ev.Type == EventRemoteUnlock) != (ev.Scope != nil) || (ev.Type == EventRemoteUnlock) == (ev.Allowed != nil) {
			t.Fatalf("%q: accepted %+v", data, ev)
		}
	})
}

// decodeObject walks the text itself after json.Valid: it must agree with
// encoding/json on every object without a repeated field, and never panic.
func FuzzDecodeObject(f *testing.F) {
	for _, s := range []string{
		`{}`, ` { "a" : 1 , "b":[1,{"c":"]}"}], "d\"e":"x\\\"y", "typ\u0065":null } `, `{"a":1}]`, `{"a":1,"a":2}`,
		`{"a":-1.5e3,"b":true,"c":false,"d":{}}`, `[]`, `"x"`, `{"a":"\ud800"}`, `{"a":{"b":{"c":[[],[{}]]}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var errs ValidationError
		obj, ok := decodeObject(&errs, data, nil)
		var want map[string]json.RawMessage
		stdErr := json.Unmarshal(data, &want)
		if ok != (stdErr == nil && want != nil) {
			t.Fatalf("%q: decodeObject ok %v, encoding/json %v", data, ok, stdErr)
		}
		messages := 0 // one "is not a known field" per field, and one more per repetition
		for _, m := range errs.Issues {
			messages += len(m)
		}
		if !ok || !utf8.Valid(data) || messages != len(obj) {
			return // not an object, or a field repeated (then the first is kept, not the last)
		}
		if len(obj) != len(want) {
			t.Fatalf("%q: %d fields, encoding/json %d", data, len(obj), len(want))
		}
		for name, raw := range want {
			if !bytes.Equal(obj[name], raw) {
				t.Fatalf("%q: field %q = %s, encoding/json %s", data, name, obj[name], raw)
			}
		}
	})
}

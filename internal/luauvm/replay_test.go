package luauvm

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/apitest"
)

// replay sends every request the SDK made in the specs to a live
// Gatehouse, in order, with a game-server key in place of the fake's:
// each must be accepted (2xx, or 304 for a revalidation), except those the
// spec sent bad on purpose, which must be refused as the fake refused
// them. The server checks every exchange against the OpenAPI document
// (apitest) and fails t on any drift.
//
// Three things differ from what the SDK sent: a sync's long poll is asked
// with waitSeconds 0 (the answer, not the wait, is what is checked); the
// server's clock follows each spec's virtual clock, shifted so that the
// specs come one after another: its per-minute limits (a server's syncs)
// judge each spec's pace, and no event is dated in its future; and a
// grant's from and until move by the same shift.
func replay(t *testing.T, api *apitest.API, requests []request) {
	if len(requests) == 0 {
		t.Fatal("the specs made no request to replay")
	}
	key := api.NewKey(t, gatehouse.ScopeGameServer, gatehouse.ScopeEventsWrite)
	accepted, refused, ownAnswers := 0, 0, 0
	var shift time.Duration
	spec := ""
	for i, r := range requests {
		if r.Spec != spec {
			// Each spec's game server starts at the same virtual instant; on
			// the server it starts two minutes after the last one ended,
			// so that per-minute limits see one server at a time.
			spec = r.Spec
			shift = api.Clock.Now().Add(2 * time.Minute).Sub(time.UnixMilli(r.AtMillis))
		}
		if at := time.UnixMilli(r.AtMillis).Add(shift); at.After(api.Clock.Now()) {
			api.Clock.Advance(at.Sub(api.Clock.Now()))
		}
		var body io.Reader
		raw := []byte(nil)
		if r.Body != nil {
			raw = []byte(*r.Body)
			if strings.HasSuffix(r.Path, "/sync") {
				raw = withoutWait(t, raw)
			}
			if strings.HasSuffix(r.Path, "/grants") {
				raw = shifted(t, raw, shift)
			}
			body = bytes.NewReader(raw)
		}
		req, err := http.NewRequest(r.Method, api.URL+r.Path, body)
		if err != nil {
			t.Fatalf("request %d of %q: %v", i, r.Spec, err)
		}
		for k, v := range r.Headers {
			req.Header.Set(k, strings.ReplaceAll(v, "<secret>", key))
		}
		res, err := api.Client.Do(req)
		if err != nil {
			t.Fatalf("request %d of %q: %v", i, r.Spec, err)
		}
		answer, _ := io.ReadAll(res.Body)
		res.Body.Close()
		ok := res.StatusCode/100 == 2 || res.StatusCode == http.StatusNotModified
		switch {
		case r.Expect == "refuse":
			refused++
			if ok || res.StatusCode/100 != 4 {
				t.Errorf("%q: %s %s was refused by the fake (%d) on purpose, Gatehouse answered %d: %.500s",
					r.Spec, r.Method, r.Path, r.Answer.Status, res.StatusCode, answer)
				continue
			}
			if r.Answer != nil && r.Answer.Status != res.StatusCode {
				t.Errorf("%q: %s %s: the fake answered %d, Gatehouse %d: %.500s", r.Spec, r.Method, r.Path, r.Answer.Status, res.StatusCode, answer)
			}
			sameIssues(t, r, answer)
		case !ok:
			t.Errorf("%q: Gatehouse refused %s %s (%d): %.500s\nbody: %.500s", r.Spec, r.Method, r.Path, res.StatusCode, answer, raw)
		default:
			accepted++
		}
		if r.Own {
			checkFake(t, r, raw)
			ownAnswers++
		}
	}
	t.Logf("replayed %d requests against a live Gatehouse: %d accepted, %d refused as the fake refused them; %d answers of the fake checked against the OpenAPI document",
		len(requests), accepted, refused, ownAnswers)
}

// shifted moves a body's from and until (RFC 3339) by d.
func shifted(t *testing.T, raw []byte, d time.Duration) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw
	}
	for _, field := range []string{"from", "until"} {
		var s string
		if json.Unmarshal(m[field], &s) != nil {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			continue
		}
		b, err := json.Marshal(at.Add(d).UTC().Format(time.RFC3339Nano))
		if err != nil {
			t.Fatal(err)
		}
		m[field] = b
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkFake checks the fake Gatehouse's own answer to r against the
// OpenAPI document, as apitest checks the server's: so that the fake
// cannot drift from what Gatehouse answers.
func checkFake(t *testing.T, r request, raw []byte) {
	t.Helper()
	if r.Answer == nil {
		return
	}
	req, err := http.NewRequest(r.Method, "http://gatehouse.example"+r.Path, bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range r.Headers {
		req.Header.Set(k, strings.ReplaceAll(v, "<secret>", "gk_fake"))
	}
	header := http.Header{}
	for k, v := range r.Answer.Headers {
		header.Set(k, v)
	}
	body := []byte(r.Answer.Body)
	var text string
	if json.Unmarshal(body, &text) == nil {
		body = []byte(text) // the fake answered text
	} else {
		header.Set("Content-Type", "application/json")
	}
	if err := apitest.Document(t).Check(req, raw, r.Answer.Status, header, body); err != nil {
		t.Errorf("%q: the fake's answer to %s %s (%d) does not match the OpenAPI document:\n%v\nbody: %.500s",
			r.Spec, r.Method, r.Path, r.Answer.Status, err, body)
	}
}

// withoutWait sets a sync body's waitSeconds to 0.
func withoutWait(t *testing.T, raw []byte) []byte {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return raw // not JSON: sent as it is, for the server to judge
	}
	if _, ok := m["waitSeconds"]; !ok {
		return raw
	}
	m["waitSeconds"] = json.RawMessage("0")
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameIssues checks that Gatehouse names, in its 400, every issue the
// fake named.
func sameIssues(t *testing.T, r request, answer []byte) {
	t.Helper()
	if r.Answer == nil {
		return
	}
	var fake, real struct {
		Issues map[string]any `json:"issues"`
	}
	if json.Unmarshal(r.Answer.Body, &fake) != nil || len(fake.Issues) == 0 {
		return
	}
	if err := json.Unmarshal(answer, &real); err != nil {
		t.Errorf("%q: Gatehouse's 400 is not JSON: %.300s", r.Spec, answer)
		return
	}
	for k := range fake.Issues {
		if _, ok := real.Issues[k]; !ok {
			t.Errorf("%q: the fake's 400 names %s, Gatehouse's does not: %.500s", r.Spec, k, answer)
		}
	}
}

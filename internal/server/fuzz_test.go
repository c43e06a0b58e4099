package server_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/apitest"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
)

// fuzzHTTP serves each input through the whole handler (authentication,
// limits, parsing, the store): no input may get a 5xx, and every answer
// must match the OpenAPI document.
func fuzzHTTP(f *testing.F, seeds []string, request func(o org, input string) *http.Request) {
	e := newEnv(f, func(c *app.Settings) { // every input reaches the query, none is rate limited
		c.KeyLimit = ratelimit.Limit{Rate: gatehouse.Rate{Count: 1e9, Per: time.Second}, Burst: 1e9}
	})
	o := e.newOrg("Acme")
	for i, ap := range o.accessPoints {
		e.ingest(o, e.ev(ap, gatehouse.EventAccessGranted, i+1), e.ev(ap, gatehouse.EventAccessDenied, i+2))
	}
	for _, s := range seeds {
		f.Add(s)
	}
	check := apitest.Document(f)
	f.Fuzz(func(t *testing.T, input string) {
		req := request(o, input)
		if req == nil {
			return
		}
		body := ""
		if req.Body != nil {
			body = input
		}
		w := httptest.NewRecorder()
		e.handler.ServeHTTP(w, req)
		if w.Code >= 500 {
			t.Fatalf("%q: %d %s", input, w.Code, w.Body)
		}
		if err := check.Check(req, []byte(body), w.Code, w.Header(), w.Body.Bytes()); err != nil {
			t.Fatalf("%q: %v", input, err)
		}
	})
}

func FuzzListEvents(f *testing.F) {
	fuzzHTTP(f, []string{"", "limit=2", "q=door", "q=%25", "allowed=denied&type=ACCESS_DENIED,FOO", "dateFrom=2026-01-01&dateTo=2027-06-01",
		"cursor=AAAA", "q='; DROP TABLE events; --", "platformUserId=%00", "a=b&a=c", "limit=-1", "q=%C0%80"},
		func(o org, raw string) *http.Request {
			req, err := http.NewRequest("GET", "/api/consumer/v1/events?"+raw, nil)
			if err != nil || strings.ContainsAny(raw, "# ") {
				return nil // not a request line a client can send
			}
			req.Header.Set("Authorization", "Bearer "+o.readKey)
			return req
		})
}

func FuzzIngest(f *testing.F) {
	fuzzHTTP(f, []string{`{"events":[]}`, `{"events":[{}]}`, `{"events":null}`, `[]`, `{"events":[{"type":"ACCESS_DENIED"}]}`,
		`{"events":[{"type":"ACCESS_GRANTED","occurredAt":"2026-11-20T11:00:00Z","accessPointId":"01a206f0-47fc-799a-bda8-edf8088752e0"}]}`,
		`{"events":[{"id":"01a206f0-47fc-799a-bda8-edf8088752e0","type":"REMOTE_UNLOCK","scope":"PLAYER"}]}`, `{"events":[1,2,3]}`, "\x00"},
		func(o org, body string) *http.Request {
			req, _ := http.NewRequest("POST", "/api/consumer/v1/events", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+o.allKey)
			req.Header.Set("Content-Type", "application/json")
			return req
		})
}

package apitest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// recordingTB keeps what a check reports instead of failing the test.
type recordingTB struct {
	testing.TB
	errs []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// Both ways of checking, server side and client side, report a response
// the document does not describe, and pass one it does.
func TestHandlerAndTransportReportDrift(t *testing.T) {
	ok := `{"status":"ok","version":"v1.4.0"}`
	for _, tc := range []struct {
		name, body string
		drift      bool
	}{{"documented", ok, false}, {"an added field", `{"status":"ok","version":"v1.4.0","uptime":3}`, true}} {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("X-Request-Id", "0123456789abcdef01234567")
			fmt.Fprint(w, tc.body)
		})
		server, client := &recordingTB{TB: t}, &recordingTB{TB: t}
		srv := httptest.NewServer(Document(t).Handler(server, h))
		hc := &http.Client{Transport: Document(t).Transport(client, nil)}
		res, err := hc.Get(srv.URL + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		srv.Close()
		for side, rec := range map[string]*recordingTB{"server": server, "client": client} {
			if got := len(rec.errs) > 0; got != tc.drift {
				t.Errorf("%s, %s side: reported %v", tc.name, side, rec.errs)
			}
		}
	}
}

package server_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"testing"

	"github.com/gatehouse/gatehouse"
)

// TestLargeResponsesAreGzipped: a page of 500 events goes gzipped to a
// client that accepts it (228 KB before), and decompresses to the very
// page a client that does not accept it gets.
func TestLargeResponsesAreGzipped(t *testing.T) {
	e := newEnv(t)
	o := e.newOrg("Acme")
	evs := make([]gatehouse.NewEvent, 500)
	for i := range evs {
		evs[i] = e.ev(o.accessPoints[i%len(o.accessPoints)], gatehouse.EventAccessDenied, i)
	}
	e.ingest(o, evs...)
	const page = "/api/consumer/v1/events?limit=500"
	plain := e.do(http.MethodGet, page, o.readKey, nil, "Accept-Encoding", "identity")
	zipped := e.do(http.MethodGet, page, o.readKey, nil, "Accept-Encoding", "gzip, deflate, br")
	if plain.status != 200 || plain.header.Get("Content-Encoding") != "" || plain.header.Get("Vary") != "Accept-Encoding" {
		t.Fatalf("identity: %d %v", plain.status, plain.header)
	}
	if zipped.status != 200 || zipped.header.Get("Content-Encoding") != "gzip" || zipped.header.Get("Vary") != "Accept-Encoding" {
		t.Fatalf("gzip: %d %v", zipped.status, zipped.header)
	}
	if got := gunzip(t, zipped.body); !bytes.Equal(got, plain.body) {
		t.Errorf("the gzipped page decompresses to %.200s…, not the identity page %.200s…", got, plain.body)
	}
	t.Logf("500-event page: %d bytes, gzipped %d", len(plain.body), len(zipped.body))
}

// TestCompressionHonoursAcceptEncoding: q=0 refuses gzip, "*" stands for
// it, and small bodies (an error, a short page) are never compressed.
func TestCompressionHonoursAcceptEncoding(t *testing.T) {
	e := newEnv(t)
	o := e.newOrg("Acme")
	evs := make([]gatehouse.NewEvent, 50)
	for i := range evs {
		evs[i] = e.ev(o.accessPoints[0], gatehouse.EventAccessGranted, i)
	}
	e.ingest(o, evs...)
	for _, c := range []struct {
		path, key, accept string
		gzipped           bool
	}{
		{"/api/consumer/v1/events", o.readKey, "gzip", true},
		{"/api/consumer/v1/events", o.readKey, "GZIP;q=0.5", true},
		{"/api/consumer/v1/events", o.readKey, "br;q=1.0, gzip;q=0.1", true},
		{"/api/consumer/v1/events", o.readKey, "*", true},
		{"/api/consumer/v1/events", o.readKey, "gzip;q=0", false},
		{"/api/consumer/v1/events", o.readKey, "gzip;q=0, *", false},
		{"/api/consumer/v1/events", o.readKey, "*;q=0", false},
		{"/api/consumer/v1/events", o.readKey, "identity", false},
		{"/api/consumer/v1/events", o.readKey, "br", false},
		{"/api/consumer/v1/events?limit=1", o.readKey, "gzip", false}, // under the threshold
		{"/api/consumer/v1/events", "gk_bad", "gzip", false},          // a small error
		{"/api/consumer/v1/openapi.json", "", "gzip", true},
	} {
		r := e.do(http.MethodGet, c.path, c.key, nil, "Accept-Encoding", c.accept)
		if got := r.header.Get("Content-Encoding") == "gzip"; got != c.gzipped || r.header.Get("Vary") != "Accept-Encoding" {
			t.Errorf("GET %s, Accept-Encoding %q: %d, Content-Encoding %q, Vary %q; want gzipped %v",
				c.path, c.accept, r.status, r.header.Get("Content-Encoding"), r.header.Get("Vary"), c.gzipped)
		}
	}
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

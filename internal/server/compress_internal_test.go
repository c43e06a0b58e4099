package server

import (
	"bufio"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestAcceptsGzip(t *testing.T) {
	for header, want := range map[string]bool{
		"gzip": true, "x-gzip": true, "deflate, gzip;q=0.001": true, "*": true, "gzip;q=1, *;q=0": true,
		"": false, "identity": false, "gzip;q=0": false, "gzip; q=0.0": false, "*;q=0": false,
		"gzip;q=0, *": false, "gzip;q=x": false, "gzip;q=2": false, "deflate": false,
	} {
		if got := acceptsGzip([]string{header}); got != want {
			t.Errorf("Accept-Encoding %q: %v, want %v", header, got, want)
		}
	}
}

// TestCompressedStreamsFlushPageByPage: a streamed response (an export)
// that flushes a page is readable, decompressed, up to that page before
// the next is written; and one cut mid-way does not end as a whole.
func TestCompressedStreamsFlushPageByPage(t *testing.T) {
	cut := make(chan bool) // after the first page: whether to cut the stream
	h := compress(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		io.WriteString(w, "{\"page\":1}\n") // far under compressMin
		if err := http.NewResponseController(w).Flush(); err != nil {
			t.Error(err)
		}
		if <-cut {
			panic(http.ErrAbortHandler) // as an export whose database failed
		}
		io.WriteString(w, "{\"page\":2}\n")
	}))
	srv := httptest.NewServer(h)
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	for _, cutIt := range []bool{false, true} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
		req.Header.Set("Accept-Encoding", "gzip")
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if res.Header.Get("Content-Encoding") != "gzip" {
			t.Fatalf("a flushed stream was not compressed: %v", res.Header)
		}
		first := make(chan string, 1)
		body := bufio.NewReader(nil)
		go func() {
			zr, err := gzip.NewReader(res.Body)
			if err != nil {
				first <- err.Error()
				return
			}
			body.Reset(zr)
			line, _ := body.ReadString('\n')
			first <- line
		}()
		select {
		case line := <-first:
			if line != "{\"page\":1}\n" {
				t.Fatalf("first page %q", line)
			}
		case <-time.After(10 * time.Second): // a guard against hanging, not a measurement
			t.Fatal("the flushed page did not reach the client")
		}
		cut <- cutIt
		rest, err := io.ReadAll(body)
		res.Body.Close()
		if cutIt && err == nil {
			t.Errorf("a cut stream ended as a whole: %q", rest)
		}
		if !cutIt && (err != nil || string(rest) != "{\"page\":2}\n") {
			t.Errorf("the rest: %q %v", rest, err)
		}
	}
}

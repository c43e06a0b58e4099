package webhook_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/internal/webhook"
)

func TestPublic(t *testing.T) {
	for _, tc := range []struct {
		addr   string
		public bool
	}{
		{"93.184.215.14", true},
		{"2606:2800:21f:cb07:6820:80da:af6b:8b2c", true},
		{"127.0.0.1", false},
		{"::1", false},
		{"::ffff:127.0.0.1", false}, // an IPv4 loopback in IPv6 clothing
		{"10.1.2.3", false},
		{"172.16.0.1", false},
		{"192.168.1.1", false},
		{"fd00::1", false},
		{"169.254.169.254", false}, // cloud metadata
		{"fe80::1", false},
		{"0.0.0.0", false},
		{"::", false},
		{"100.64.0.1", false},
		{"224.0.0.1", false},
		{"255.255.255.255", false},
		{"64:ff9b::7f00:1", false},                      // NAT64 of 127.0.0.1
		{"::7f00:1", false},                             // IPv4-compatible 127.0.0.1
		{"::ffff:0:7f00:1", false},                      // IPv4-translated
		{"2002:7f00:1::1", false},                       // 6to4 of 127.0.0.1
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", false}, // Teredo
	} {
		if got := webhook.Public(netip.MustParseAddr(tc.addr)); got != tc.public {
			t.Errorf("Public(%s) = %t, want %t", tc.addr, got, tc.public)
		}
	}
}

// The client refuses loopback, private and link-local targets, by address
// or by a name that resolves to one, at the moment it connects; allowed
// private targets it reaches. It follows no redirect.
func TestClientRefusesNonPublicTargets(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
			return
		}
		w.Write([]byte(strings.Repeat("x", webhook.MaxResponseRead+100)))
	}))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	strict := webhook.NewClient(false)
	for _, target := range []string{
		srv.URL,                            // 127.0.0.1
		"http://localhost" + port,          // a name resolving to loopback
		"http://[::ffff:127.0.0.1]" + port, // mapped
		"http://10.0.0.1:9",                // private: refused before any packet
		"http://169.254.169.254/latest/meta-data/",
		"http://[fe80::1]:9",
	} {
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, target, nil)
		res, err := strict.Do(req)
		if err == nil {
			res.Body.Close()
			t.Errorf("%s: reached, want refused", target)
		} else if !errors.Is(err, webhook.ErrPrivateAddress) {
			t.Errorf("%s: %v, want ErrPrivateAddress", target, err)
		}
	}

	allowing := webhook.NewClient(true)
	res, err := allowing.Post(srv.URL, "application/json", nil)
	if err != nil {
		t.Fatalf("with private targets allowed: %v", err)
	}
	body, err := webhook.ReadResponse(res)
	if err != nil || len(body) != webhook.MaxResponseRead {
		t.Errorf("response read: %d bytes, %v; want the first %d", len(body), err, webhook.MaxResponseRead)
	}
	res, err = allowing.Post(srv.URL+"/redirect", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusFound {
		t.Errorf("a redirect: %d, want it returned as it is (302), not followed", res.StatusCode)
	}
}

package dashboard_test

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

func TestFailedSignInsAreLimited(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	b := s.browser()
	for i := range 5 {
		if r := b.signIn(acme.email, "wrong"); r.status != http.StatusUnauthorized || !strings.Contains(r.body, "do not match") {
			t.Fatalf("attempt %d: %d", i, r.status)
		}
	}
	r := b.signIn(acme.email, testPassword)
	if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" {
		t.Fatalf("the right password after 5 failures: %d", r.status)
	}
	if r := b.signIn("nobody@example.test", "x"); r.status != http.StatusTooManyRequests {
		t.Errorf("the same address, another email: %d", r.status)
	}
	s.now = s.now.Add(2 * time.Minute)
	if r := b.signIn(acme.email, testPassword); r.status != http.StatusSeeOther {
		t.Errorf("after waiting: %d", r.status)
	}
}

// TestConcurrentSignInsAreLimitedBeforeHashing: 40 wrong passwords sent
// at once cost at most the limit's burst of 64 MiB hashes; the rest are
// 429 with Retry-After. A check made before the hash and paid for after it
// let every one of them through to the hash.
func TestConcurrentSignInsAreLimitedBeforeHashing(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	const n = 40
	forms := make([]*browser, n)
	tokens := make([]string, n)
	for i := range forms {
		forms[i] = s.browser()
		tokens[i] = csrfOf(t, forms[i].do("GET", "/dashboard/login", nil).body)
	}
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	for i, b := range forms {
		wg.Go(func() {
			form := url.Values{"csrf": {tokens[i]}, "email": {acme.email}, "password": {"wrong"}}
			req, _ := http.NewRequest("POST", s.url+"/dashboard/login", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			res, err := b.client.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			res.Body.Close()
			if res.StatusCode == http.StatusTooManyRequests && res.Header.Get("Retry-After") == "" {
				t.Error("429 without Retry-After")
			}
			mu.Lock()
			statuses[res.StatusCode]++
			mu.Unlock()
		})
	}
	wg.Wait()
	if statuses[http.StatusUnauthorized] != 5 || statuses[http.StatusTooManyRequests] != n-5 {
		t.Fatalf("%d wrong passwords at once: %v; want the burst of 5 checked (401) and the rest 429", n, statuses)
	}
}

// TestSuccessfulSignInsCostNoFailures: a failure is spent before the hash
// and given back when the password is right.
func TestSuccessfulSignInsCostNoFailures(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	b := s.browser()
	for range 4 {
		b.signIn(acme.email, "wrong")
	}
	for i := range 3 {
		if r := s.browser().signIn(acme.email, testPassword); r.status != http.StatusSeeOther {
			t.Fatalf("right password %d after 4 failures: %d", i, r.status)
		}
	}
	if r := b.signIn(acme.email, "wrong"); r.status != http.StatusUnauthorized {
		t.Fatalf("fifth failure: %d, want 401: the successes were charged", r.status)
	}
	if r := b.signIn(acme.email, "wrong"); r.status != http.StatusTooManyRequests {
		t.Fatalf("sixth failure: %d, want 429", r.status)
	}
}

func TestSessionsExpire(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	b := s.signedIn(acme)
	s.now = s.now.Add(gatehouse.SessionLifetime + time.Minute)
	if r := b.do("GET", "/dashboard/events", nil); r.status != http.StatusSeeOther {
		t.Errorf("an expired session: %d", r.status)
	}
}

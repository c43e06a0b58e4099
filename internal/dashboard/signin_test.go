package dashboard_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
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
	if r := b.signIn("nobody@example.test", "x"); r.status != http.StatusUnauthorized {
		t.Errorf("the same address, another email: %d, want checked (its own strict bucket)", r.status)
	}
	s.now = s.now.Add(2 * time.Minute)
	if r := b.signIn(acme.email, testPassword); r.status != http.StatusSeeOther {
		t.Errorf("after waiting: %d", r.status)
	}
}

// TestConcurrentSignInsAreLimitedBeforeHashing: 40 wrong passwords sent
// at once cost at most the limit's burst of 64 MiB hashes; the rest are
// 429 with Retry-After. A check made before the hash and paid for after it
// let every one of them through to the hash. On a loaded machine one of
// the burst may wait longer than hashWait for a hashing slot and be
// refused as busy: it passed the limit all the same, so it counts with
// the checked ones.
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
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode == http.StatusTooManyRequests && res.Header.Get("Retry-After") == "" {
				t.Error("429 without Retry-After")
			}
			status := res.StatusCode
			if status == http.StatusTooManyRequests && strings.Contains(string(body), "Too many sign-ins at once") {
				status = http.StatusUnauthorized // checked by the limit, then no hashing slot in time
			}
			mu.Lock()
			statuses[status]++
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

// signInFrom submits the sign-in form from addr (behind the site's
// trusted proxy).
func (b *browser) signInFrom(addr, email, pw string) answer {
	b.t.Helper()
	form := b.do("GET", "/dashboard/login", nil, "X-Forwarded-For", addr)
	return b.do("POST", "/dashboard/login", url.Values{"csrf": {csrfOf(b.t, form.body)}, "email": {email}, "password": {pw}},
		"X-Forwarded-For", addr)
}

// TestGuessingFromOneNetworkLocksNobodyOut: the strict limit is of an
// email from one network (its /24), so a guesser who spent it there
// does not keep the owner's right password out from another network; it
// still refuses the guesser, and the wider ceilings still cap guessing
// spread over many networks (the email's) and one network's guesses at
// many emails (the network's). Each refusal is counted.
func TestGuessingFromOneNetworkLocksNobodyOut(t *testing.T) {
	proxies, _ := ratelimit.ParseProxies("127.0.0.1")
	s := newSiteWith(t, nil, func(st *app.Settings) {
		st.TrustedProxies = proxies
		st.SignInCeiling = ratelimit.Limit{Rate: gatehouse.Rate{Count: 1, Per: time.Hour}, Burst: 20}
	})
	acme := s.tenant("Acme")
	guesser := s.browser()
	for i := range 12 {
		r := guesser.signInFrom("198.51.100.7", acme.email, "wrong guess")
		if want := map[bool]int{true: http.StatusUnauthorized, false: http.StatusTooManyRequests}[i < 5]; r.status != want {
			t.Fatalf("guess %d from the guesser's network: %d, want %d", i, r.status, want)
		}
	}
	if r := s.browser().signInFrom("203.0.113.9", acme.email, testPassword); r.status != http.StatusSeeOther {
		t.Fatalf("the owner's right password from another network: %d, want signed in", r.status)
	}
	if r := guesser.signInFrom("198.51.100.200", acme.email, "another guess"); r.status != http.StatusTooManyRequests {
		t.Errorf("another address of the guesser's /24: %d, want 429", r.status)
	}
	// The email's ceiling: 5 guesses spent above, 3 more networks of 5
	// make 20, and the next network is refused before it guesses.
	for n := range 3 {
		for range 5 {
			if r := s.browser().signInFrom(fmt.Sprintf("192.0.%d.1", 10+n), acme.email, "wrong guess"); r.status != http.StatusUnauthorized {
				t.Fatalf("a guess from network %d: %d", n, r.status)
			}
		}
	}
	if r := s.browser().signInFrom("192.0.99.1", acme.email, "wrong guess"); r.status != http.StatusTooManyRequests {
		t.Errorf("past the email's ceiling: %d, want 429", r.status)
	}
	// The network's ceiling: one network trying many emails.
	for i := range 20 {
		if r := s.browser().signInFrom("192.0.200.1", fmt.Sprintf("user%d@example.test", i), "a guess"); r.status != http.StatusUnauthorized {
			t.Fatalf("email %d from one network: %d", i, r.status)
		}
	}
	if r := s.browser().signInFrom("192.0.200.2", "user20@example.test", "a guess"); r.status != http.StatusTooManyRequests {
		t.Errorf("past the network's ceiling: %d, want 429", r.status)
	}
	metrics := s.browser().do("GET", "/metrics", nil).body
	for _, want := range []string{
		`gatehouse_signin_refused_total{limit="email_network"} 8`,
		`gatehouse_signin_refused_total{limit="email"} 1`,
		`gatehouse_signin_refused_total{limit="network"} 1`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}

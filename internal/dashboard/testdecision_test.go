package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
)

// TestTestingADecisionRecordsNothing: the test form answers the
// service's decision with its reason and rule, in words; without a
// policy it fails closed; bad inputs come back next to their fields;
// no test ever records an event.
func TestTestingADecisionRecordsNothing(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	ctx := context.Background()
	b := s.signedIn(acme)
	test := func(q url.Values) answer {
		t.Helper()
		return b.do("GET", policyPath(acme.ap)+"/test?"+q.Encode(), nil)
	}
	if r := test(url.Values{"platformUserId": {"42"}}); r.status != http.StatusOK || !strings.Contains(r.body, `<strong class="reason">ACCESS_POINT_DISABLED</strong>`) ||
		!strings.Contains(r.body, `<span class="mono rule">failMode</span>`) || !strings.Contains(r.body, "has no policy yet") {
		t.Errorf("a test without a policy: %d %.300s", r.status, r.body)
	}
	csrf := csrfOf(t, b.do("GET", policyPath(acme.ap), nil).body)
	if r := b.do("POST", policyPath(acme.ap), staffPolicyForm(csrf, "0")); r.status != http.StatusSeeOther {
		t.Fatalf("save: %d", r.status)
	}
	for _, c := range []struct {
		q                   url.Values
		outcome, reason     string
		rule, words, inRule string
	}{
		// Friday 2026-11-20 11:00 UTC is 12:00 in Berlin: office hours.
		{url.Values{"platformUserId": {"42"}, "groups": {"4100:5, 9:1"}, "at": {"2026-11-20T11:00"}}, "granted", "ALLOWLIST", "allow[0]",
			"an allow rule matches", "members of group 4100 of rank 5 or more"},
		{url.Values{"platformUserId": {"42"}, "groups": {"4100:4"}, "at": {"2026-11-20T11:00"}}, "denied", "NOT_ON_ALLOWLIST", "allow",
			"no allow rule matches", "the allow list: no rule matched"},
		{url.Values{"platformUserId": {"42"}, "gamepasses": {"777"}, "at": {"2026-11-21T02:30"}}, "granted", "ALLOWLIST", "allow[1]",
			"Sat 2026-11-21 03:30 in Europe/Berlin", "owners of gamepass 777"},
		{url.Values{"platformUserId": {"42"}, "gamepasses": {"777"}, "at": {"2026-11-22T12:00"}}, "denied", "OUTSIDE_SCHEDULE", "schedule",
			"no weekly window of the schedule is open", "the schedule as a whole"},
		{url.Values{"platformUserId": {"42"}, "gamepasses": {"777"}, "at": {"2026-12-25T11:00"}}, "denied", "OUTSIDE_SCHEDULE", "schedule.exceptions[0]",
			"an exception of the schedule applies", "the exception of 2026-12-25: closed all day"},
		{url.Values{"platformUserId": {"666"}, "gamepasses": {"777"}, "at": {"2026-11-20T11:00"}}, "denied", "BLOCKED", "deny[0]",
			"A deny rule keeps this player out", "deny rule 1: player 666, until 2026-12-01 18:00 UTC"},
	} {
		r := test(c.q)
		for _, want := range []string{`<span class="badge ` + c.outcome + `">`, `<strong class="reason">` + c.reason + `</strong>`,
			`<span class="mono rule">` + c.rule + `</span>`, c.words, c.inRule, "nothing was recorded", "policy version 1"} {
			if !strings.Contains(r.body, want) {
				t.Errorf("test %v: %d, the answer lacks %q", c.q, r.status, want)
			}
		}
		if !strings.Contains(r.body, `value="`+c.q.Get("at")+`"`) {
			t.Errorf("test %v: the form does not keep the instant", c.q)
		}
	}
	bad := test(url.Values{"platformUserId": {"bob"}, "groups": {"4100"}, "badges": {"x"}, "at": {"tomorrow"}})
	if bad.status != http.StatusBadRequest {
		t.Fatalf("a test with mistakes: %d", bad.status)
	}
	for _, want := range []string{`<span class="mono">platformUserId</span>`, `<span class="mono">groups</span>`,
		`<span class="mono">attributes.badges[0]</span>`, `<span class="mono">at</span>`, `value="bob"`, `value="tomorrow"`} {
		if !strings.Contains(bad.body, want) {
			t.Errorf("the refused test lacks %s", want)
		}
	}
	page, err := s.store.ListEvents(ctx, acme.org.ID, gatehouse.EventFilter{Limit: 100})
	if err != nil || len(page.Events) != 2 {
		t.Errorf("the tests recorded events: %d events (the tenant's 2 expected), %v", len(page.Events), err)
	}
}

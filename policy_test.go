package gatehouse

import (
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// contractPolicy is the example policy of docs/api.md, "GET
// /access-points/{id}/policy", abridged, with RULES and CLOSED picked.
const contractPolicy = `{"mode": "RULES",
 "schedule": {"timeZone": "Europe/Berlin",
              "windows": [{"days": ["MON","TUE","WED","THU","FRI"], "from": "09:00", "to": "17:30"},
                          {"days": ["SAT"], "from": "22:00", "to": "02:00"}],
              "exceptions": [{"date": "2026-12-25", "closed": true}]},
 "allow": [{"platformUserId": "123"}, {"groupId": "456", "minRank": 200},
           {"gamepassId": "789"}, {"badgeId": "1011"}, {"premium": true}],
 "deny": [{"platformUserId": "666", "until": "2026-12-01T00:00:00Z"}],
 "failMode": "CLOSED"}`

func TestPolicyJSONRoundTrip(t *testing.T) {
	var p Policy
	if err := json.Unmarshal([]byte(contractPolicy), &p); err != nil {
		t.Fatal(err)
	}
	checked, err := p.Check()
	if err != nil {
		t.Fatalf("the contract's example is invalid: %v", err)
	}
	b, err := json.Marshal(checked)
	if err != nil {
		t.Fatal(err)
	}
	var back Policy
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(checked, back); diff != "" {
		t.Errorf("round trip changed the policy (-before +after):\n%s", diff)
	}
	// The JSON written is the contract's, field for field.
	var want, got any
	json.Unmarshal([]byte(contractPolicy), &want)
	json.Unmarshal(b, &got)
	want.(map[string]any)["deny"].([]any)[0].(map[string]any)["until"] = "2026-12-01T00:00:00.000Z"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("JSON differs from the contract's (-contract +written):\n%s", diff)
	}
	// Special hours round trip too.
	special := `{"mode":"OPEN","schedule":{"timeZone":"Australia/Sydney","windows":[],"exceptions":[{"date":"2026-12-24","windows":[{"from":"09:00","to":"12:00"}]}]},"allow":[],"deny":[{"platformUserId":"1"}],"failMode":"OPEN","version":3}`
	var s Policy
	if err := json.Unmarshal([]byte(special), &s); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Check(); err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(s); string(b) != special {
		t.Errorf("got  %s\nwant %s", b, special)
	}
}

func TestPolicyCheckDefaults(t *testing.T) {
	rank := 7
	p, err := Policy{Mode: ModeRules, Allow: []AllowRule{{GroupID: "1"}, {GroupID: "2", MinRank: &rank}}}.Check()
	if err != nil {
		t.Fatal(err)
	}
	if p.FailMode != FailClosed || p.Allow[0].MinRank == nil || *p.Allow[0].MinRank != DefaultMinRank || *p.Allow[1].MinRank != 7 {
		t.Errorf("defaults not filled: %+v", p)
	}
	rank = 9 // the checked policy does not share the caller's minRank
	if *p.Allow[1].MinRank != 7 {
		t.Errorf("checked policy shares the caller's minRank")
	}
	b, _ := json.Marshal(Policy{Mode: ModeLocked})
	p2, _ := Policy{Mode: ModeLocked}.Check()
	b2, _ := json.Marshal(p2)
	if want := `{"mode":"LOCKED","schedule":null,"allow":[],"deny":[],"failMode":"CLOSED"}`; string(b2) != want {
		t.Errorf("normalized JSON %s, want %s (unnormalized: %s)", b2, want, b)
	}
}

// TestPolicyCheckEveryIssue: one policy with a problem of every kind gets
// every one of them at once, keyed by its exact field path.
func TestPolicyCheckEveryIssue(t *testing.T) {
	bad := `{"mode": "SOMETIMES", "failMode": "MAYBE",
	 "schedule": {"timeZone": "Mars/Olympus_Mons",
	   "windows": [{"days": [], "from": "9:00", "to": "25:00"},
	               {"days": ["MON", "MON", "mon"], "from": "10:00", "to": "10:00"},
	               {"days": ["SUN"], "from": "24:00", "to": "24:00"},
	               {"days": ["SAT"], "from": "22:00", "to": "02:00"}],
	   "exceptions": [{"date": "2026-13-01", "closed": true, "windows": [{"from": "08:00", "to": "09:00"}]},
	                  {"date": "2026-12-25", "closed": true},
	                  {"date": "2026-12-25", "closed": true},
	                  {"date": "2026-12-26"},
	                  {"date": "2026-12-27", "windows": [{"from": "08:00", "to": "08:00"}, {"from": "7:00", "to": "24:01"}]}]},
	 "allow": [{}, {"platformUserId": "0"}, {"groupId": "456", "minRank": 256}, {"minRank": 5},
	           {"platformUserId": "1", "gamepassId": "2"}, {"gamepassId": "x"}, {"badgeId": "-1"},
	           {"platformUserId": "7"}, {"platformUserId": "7"}, {"groupId": "456", "minRank": -1}, {"premium": false},
	           {"premium": true}, {"premium": true}],
	 "deny": [{"platformUserId": ""}, {"platformUserId": "5"}, {"platformUserId": "5"}, {"platformUserId": "01"}]}`
	var p Policy
	if err := json.Unmarshal([]byte(bad), &p); err != nil {
		t.Fatal(err)
	}
	_, err := p.Check()
	var v *ValidationError
	if !errors.As(err, &v) || !errors.Is(err, ErrInvalid) {
		t.Fatalf("Check: %v, want a *ValidationError", err)
	}
	want := []string{
		"mode", "failMode", "schedule.timeZone",
		"schedule.windows[0].days", "schedule.windows[0].from", "schedule.windows[0].to",
		"schedule.windows[1].days[1]", "schedule.windows[1].days[2]", "schedule.windows[1].to",
		"schedule.windows[2].from",
		"schedule.exceptions[0].date", "schedule.exceptions[0].windows",
		"schedule.exceptions[2].date", "schedule.exceptions[3]",
		"schedule.exceptions[4].windows[0].to", "schedule.exceptions[4].windows[1].from", "schedule.exceptions[4].windows[1].to",
		"allow[0]", "allow[1].platformUserId", "allow[2].minRank", "allow[3]", "allow[3].minRank", "allow[4]",
		"allow[5].gamepassId", "allow[6].badgeId", "allow[8]", "allow[9]", "allow[9].minRank", "allow[10]", "allow[12]",
		"deny[0].platformUserId", "deny[2].platformUserId", "deny[3].platformUserId",
	}
	got := slices.Sorted(maps.Keys(v.Issues))
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("issue keys (-want +got):\n%s\n%v", diff, err)
	}
}

func TestPolicyCheckBounds(t *testing.T) {
	p := Policy{Mode: ModeRules, Schedule: &Schedule{TimeZone: "UTC"}}
	for range MaxPolicyWindows + 1 {
		p.Schedule.Windows = append(p.Schedule.Windows, Window{Days: []string{"MON"}, From: "09:00", To: "10:00"})
	}
	for i := range MaxPolicyExceptions + 1 {
		date := time.Date(2026, 1, 1+i, 0, 0, 0, 0, time.UTC).Format(time.DateOnly)
		p.Schedule.Exceptions = append(p.Schedule.Exceptions, Exception{Date: date, Closed: true})
	}
	for i := range MaxPolicyAllowRules + 1 {
		p.Allow = append(p.Allow, AllowRule{PlatformUserID: strconv.Itoa(i + 1)})
	}
	for i := range MaxPolicyDenyRules + 1 {
		p.Deny = append(p.Deny, DenyRule{PlatformUserID: strconv.Itoa(i + 1)})
	}
	_, err := p.Check()
	var v *ValidationError
	if !errors.As(err, &v) {
		t.Fatalf("Check: %v", err)
	}
	want := []string{"allow", "deny", "schedule.exceptions", "schedule.windows"}
	if got := slices.Sorted(maps.Keys(v.Issues)); !slices.Equal(got, want) {
		t.Errorf("issue keys %v, want %v", got, want)
	}
	// At the bounds, all is well.
	p.Schedule.Windows = p.Schedule.Windows[:MaxPolicyWindows]
	p.Schedule.Exceptions = p.Schedule.Exceptions[:MaxPolicyExceptions]
	p.Allow = p.Allow[:MaxPolicyAllowRules]
	p.Deny = p.Deny[:MaxPolicyDenyRules]
	if _, err := p.Compile(); err != nil {
		t.Errorf("at the bounds: %v", err)
	}
}

func TestPolicyCheckTimeZones(t *testing.T) {
	for _, tc := range []struct {
		zone string
		ok   bool
	}{
		{"Europe/Berlin", true}, {"Australia/Sydney", true}, {"America/New_York", true}, {"UTC", true},
		{"", false}, {"Local", false}, {"../../etc/passwd", false}, {"/etc/localtime", false}, {"Europe/Nowhere", false},
	} {
		_, err := Policy{Mode: ModeRules, Schedule: &Schedule{TimeZone: tc.zone}}.Check()
		if (err == nil) != tc.ok {
			t.Errorf("time zone %q: %v, want ok %v", tc.zone, err, tc.ok)
		}
	}
}

func TestDecisionJSON(t *testing.T) {
	b, _ := json.Marshal(Decision{Granted, ReasonAllowlist, "allow[1]"})
	if want := `{"allowed":"granted","reason":"ALLOWLIST","rule":"allow[1]"}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

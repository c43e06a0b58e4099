package gatehouse

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// conformanceCase is one vector of conformance/decisions.json (see
// conformance/README.md).
type conformanceCase struct {
	Name   string `json:"name"`
	Policy Policy `json:"policy"`
	Input  struct {
		DecisionInput
		Unlocks   []ActiveUnlock `json:"unlocks"`
		Lockdowns []ActiveSpan   `json:"lockdowns"`
		Grants    []ActiveGrant  `json:"grants"`
	} `json:"input"`
	At   string   `json:"at"`
	Want Decision `json:"want"`
}

func loadConformance(t *testing.T) []conformanceCase {
	t.Helper()
	b, err := os.ReadFile("conformance/decisions.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Version int               `json:"version"`
		Cases   []conformanceCase `json:"cases"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&file); err != nil {
		t.Fatal(err)
	}
	if file.Version != 1 || len(file.Cases) < 250 {
		t.Fatalf("version %d with %d cases, want version 1 with at least 250", file.Version, len(file.Cases))
	}
	return file.Cases
}

// TestConformance runs every vector through the Go evaluator; the game
// server SDK's evaluator runs the same file.
func TestConformance(t *testing.T) {
	names := map[string]bool{}
	for _, c := range loadConformance(t) {
		if names[c.Name] {
			t.Errorf("case %q appears twice", c.Name)
		}
		names[c.Name] = true
		at, err := time.Parse(time.RFC3339Nano, c.At)
		if err != nil {
			t.Errorf("%s: at: %v", c.Name, err)
			continue
		}
		p, err := c.Policy.Compile()
		if err != nil {
			t.Errorf("%s: policy: %v", c.Name, err)
			continue
		}
		in := c.Input.DecisionInput
		in.Unlocks, in.Lockdowns, in.Grants = c.Input.Unlocks, c.Input.Lockdowns, c.Input.Grants
		if got := Decide(p, in, at); got != c.Want {
			t.Errorf("%s: at %s got %+v, want %+v", c.Name, c.At, got, c.Want)
		}
	}
}

func TestDecideWithoutPolicy(t *testing.T) {
	at := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	in := DecisionInput{PlatformUserID: "42", ServerJobID: "job-a"}
	for _, tc := range []struct {
		mode FailMode
		in   DecisionInput
		want Decision
	}{
		{FailClosed, in, Decision{Denied, ReasonAccessPointDisabled, RuleFailMode}},
		{FailOpen, in, Decision{Granted, ReasonOpen, RuleFailMode}},
		{"", in, Decision{Denied, ReasonAccessPointDisabled, RuleFailMode}},
		{FailClosed, DecisionInput{PlatformUserID: "42", Unlocks: []ActiveUnlock{{Scope: ScopePlayer, PlatformUserID: "42", Until: Time(at.Add(time.Second))}}},
			Decision{Granted, ReasonRemoteUnlock, RuleRemoteUnlock}},
		{FailClosed, DecisionInput{PlatformUserID: "42", Unlocks: []ActiveUnlock{{Scope: ScopeUniverse, Until: Time(at)}}},
			Decision{Denied, ReasonAccessPointDisabled, RuleFailMode}},
		// A lockdown denies whatever the fail mode, before an unlock.
		{FailOpen, DecisionInput{PlatformUserID: "42", Lockdowns: []ActiveSpan{{}},
			Unlocks: []ActiveUnlock{{Scope: ScopeUniverse, Until: Time(at.Add(time.Second))}}},
			Decision{Denied, ReasonLockdown, RuleLockdown}},
		// The player's grant names this access point: it lets them in
		// without the policy, and another player's does not.
		{FailClosed, DecisionInput{PlatformUserID: "42", Grants: []ActiveGrant{{PlatformUserID: "42", From: Time(at), Until: Time(at.Add(time.Hour))}}},
			Decision{Granted, ReasonGrant, RuleGrant}},
		{FailClosed, DecisionInput{PlatformUserID: "42", Grants: []ActiveGrant{{PlatformUserID: "43", From: Time(at), Until: Time(at.Add(time.Hour))}}},
			Decision{Denied, ReasonAccessPointDisabled, RuleFailMode}},
	} {
		if got := DecideWithoutPolicy(tc.mode, tc.in, at); got != tc.want {
			t.Errorf("DecideWithoutPolicy(%q, %+v) = %+v, want %+v", tc.mode, tc.in, got, tc.want)
		}
	}
	if got, want := Decide(nil, in, at), DecideWithoutPolicy(FailClosed, in, at); got != want {
		t.Errorf("Decide(nil) = %+v, want %+v", got, want)
	}
}

// TestDecisionInputJSON: a request body cannot state its own unlocks,
// lockdowns or grants.
func TestDecisionInputJSON(t *testing.T) {
	var in DecisionInput
	body := `{"platformUserId":"42","serverJobId":"j","attributes":{"groups":{"456":210},"gamepasses":["789"],"badges":[],"premium":true},` +
		`"unlocks":[{"scope":"UNIVERSE","until":"2099-01-01T00:00:00Z"}],"lockdowns":[{}],` +
		`"grants":[{"platformUserId":"42","from":"2020-01-01T00:00:00Z","until":"2099-01-01T00:00:00Z"}]}`
	if err := json.Unmarshal([]byte(body), &in); err != nil {
		t.Fatal(err)
	}
	if len(in.Unlocks) != 0 || len(in.Lockdowns) != 0 || len(in.Grants) != 0 {
		t.Errorf("read from JSON: unlocks %+v, lockdowns %+v, grants %+v", in.Unlocks, in.Lockdowns, in.Grants)
	}
	if in.Attributes.Groups["456"] != 210 || !in.Attributes.Premium || in.Attributes.Gamepasses[0] != "789" {
		t.Errorf("attributes %+v", in.Attributes)
	}
}

func TestDecisionInputCheck(t *testing.T) {
	ok := DecisionInput{PlatformUserID: "42", ServerJobID: "00000000-0000-0000-0000-000000000001",
		Attributes: PlayerAttributes{Groups: map[string]int{"456": 255, "1": 0}, Gamepasses: []string{"789"}, Badges: []string{"1"}}}
	if err := ok.Check(); err != nil {
		t.Errorf("valid input: %v", err)
	}
	if err := (DecisionInput{PlatformUserID: "42"}).Check(); err != nil {
		t.Errorf("input without job id or attributes: %v", err)
	}
	bad := DecisionInput{PlatformUserID: "0x1", ServerJobID: strings.Repeat("j", MaxJobID+1),
		Attributes: PlayerAttributes{Groups: map[string]int{"456": 256, "x": 1, "7": -1}, Gamepasses: []string{"1", ""}, Badges: make([]string, MaxPlayerBadges+1)}}
	var v *ValidationError
	if !errors.As(bad.Check(), &v) {
		t.Fatal("bad input passes")
	}
	want := []string{"attributes.badges", "attributes.gamepasses[1]", "attributes.groups", "attributes.groups.456", "attributes.groups.7", "platformUserId", "serverJobId"}
	if got := slices.Sorted(maps.Keys(v.Issues)); !slices.Equal(got, want) {
		t.Errorf("issue keys %v, want %v", got, want)
	}
}

package gatehouse

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"time"
)

// conformanceCase is one vector of conformance/decisions.json (see
// conformance/README.md).
type conformanceCase struct {
	Name   string        `json:"name"`
	Policy Policy        `json:"policy"`
	Input  DecisionInput `json:"input"`
	At     string        `json:"at"`
	Want   Decision      `json:"want"`
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
		if got := Decide(p, c.Input, at); got != c.Want {
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
	} {
		if got := DecideWithoutPolicy(tc.mode, tc.in, at); got != tc.want {
			t.Errorf("DecideWithoutPolicy(%q, %+v) = %+v, want %+v", tc.mode, tc.in, got, tc.want)
		}
	}
	if got, want := Decide(nil, in, at), DecideWithoutPolicy(FailClosed, in, at); got != want {
		t.Errorf("Decide(nil) = %+v, want %+v", got, want)
	}
}

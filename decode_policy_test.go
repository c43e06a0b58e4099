package gatehouse_test

import (
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

// TestDecodePolicyNamesEveryProblem: fields misspelt in case, given twice
// or of the wrong type are reported by path, each once, with the checks
// of what could be read; version and updatedAt are taken and ignored.
func TestDecodePolicyNamesEveryProblem(t *testing.T) {
	_, err := gatehouse.DecodePolicy([]byte(`{"Mode": "OPEN", "mode": "RULES", "mode": "LOCKED",
		"allow": [{"groupId": "5", "minrank": 9}, 7, {"groupId": "6", "minRank": 2.5}],
		"deny": [{"platformUserId": "1", "until": "tomorrow"}],
		"schedule": {"timeZone": "Mars/Olympus", "windows": [{"days": ["MON"], "from": "09:00", "to": "9"}]},
		"version": 7, "updatedAt": "x"}`))
	var ve *gatehouse.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error %v", err)
	}
	got := slices.Sorted(maps.Keys(ve.Issues))
	want := []string{"Mode", "allow[0].minrank", "allow[1]", "allow[2].minRank", "deny[0].until", "mode",
		"schedule.timeZone", "schedule.windows[0].to"}
	if !slices.Equal(got, want) {
		t.Errorf("issues %v\nwant %v\n%v", got, want, ve)
	}
	for field, msgs := range ve.Issues {
		if len(msgs) != 1 {
			t.Errorf("%s reported %d times: %q", field, len(msgs), msgs)
		}
	}
	p, err := gatehouse.DecodePolicy([]byte(`{"mode": "OPEN", "version": 7, "updatedAt": "2026-11-20T12:00:00Z"}`))
	if err != nil || p.Mode != gatehouse.ModeOpen || p.Version != 0 || p.UpdatedAt != nil || p.FailMode != gatehouse.FailClosed {
		t.Errorf("a policy read back: %+v, %v", p, err)
	}
}

// TestInstantsStayInRange: a deny rule's until and a decision's at follow
// the rule of every instant Gatehouse accepts (ParseTime): an offset that
// carries 9999-12-31 into year 10000 in UTC is refused, from the JSON and
// from a door that builds the value itself, since such an instant is
// stored and then cannot be read back.
func TestInstantsStayInRange(t *testing.T) {
	const past = "9999-12-31T23:59:59-23:59" // 10000-01-01T23:58:59Z
	_, err := gatehouse.DecodePolicy([]byte(`{"mode": "RULES", "deny": [{"platformUserId": "1", "until": "` + past + `"}]}`))
	if !hasIssue(err, "deny[0].until") {
		t.Errorf("until in year 10000: %v", err)
	}
	if p, err := gatehouse.DecodePolicy([]byte(`{"mode": "RULES", "deny": [{"platformUserId": "1", "until": "9999-12-31T23:59:59Z"}]}`)); err != nil || p.Deny[0].Until == nil {
		t.Errorf("until in year 9999: %+v, %v", p, err)
	}
	late := gatehouse.Time(gatehouse.MaxTime.Add(time.Millisecond))
	_, err = gatehouse.Policy{Mode: gatehouse.ModeRules, Deny: []gatehouse.DenyRule{{PlatformUserID: "1", Until: &late}}}.Check()
	if !hasIssue(err, "deny[0].until") {
		t.Errorf("a policy built with until in year 10000: %v", err)
	}
	id := "0193a5b2-7c1e-7d3f-9a4b-5c6d7e8f9a0b"
	_, err = gatehouse.DecodeDecisionRequest([]byte(`{"accessPointId": "` + id + `", "platformUserId": "1", "at": "` + past + `"}`))
	if !hasIssue(err, "at") {
		t.Errorf("a decision at year 10000: %v", err)
	}
}

func hasIssue(err error, field string) bool {
	var ve *gatehouse.ValidationError
	return errors.As(err, &ve) && len(ve.Issues[field]) > 0
}

// TestMistypedGroupKeepsItsRank: a groupId of the wrong type is reported
// as such, and its minRank is checked as the group's rank, not called a
// rank without a group, nor the rule one of no kind.
func TestMistypedGroupKeepsItsRank(t *testing.T) {
	_, err := gatehouse.DecodePolicy([]byte(`{"mode": "RULES", "allow": [{"groupId": 456, "minRank": 300}], "failMode": "CLOSED"}`))
	var ve *gatehouse.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error %v", err)
	}
	want := map[string][]string{"allow[0].groupId": {"must be a string"}, "allow[0].minRank": {"must be between 0 and 255"}}
	if !maps.EqualFunc(ve.Issues, want, slices.Equal) {
		t.Errorf("issues %q, want %q", ve.Issues, want)
	}
}

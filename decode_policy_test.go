package gatehouse_test

import (
	"errors"
	"maps"
	"slices"
	"testing"

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

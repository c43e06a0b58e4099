package gatehouse

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// FuzzPolicy: any JSON is refused with field-keyed issues, or accepted,
// and then it compiles, checking it again changes nothing, and a decision
// at any instant gives one of the contract's reasons.
func FuzzPolicy(f *testing.F) {
	f.Add([]byte(contractPolicy), int64(1795000000), "123")
	f.Add([]byte(`{"mode":"RULES","schedule":{"timeZone":"Australia/Lord_Howe","windows":[{"days":["SUN"],"from":"01:30","to":"02:30"}],"exceptions":[{"date":"2026-04-05","windows":[{"from":"23:00","to":"00:30"}]}]}}`), int64(1775310000), "1")
	f.Add([]byte(`{"mode":"OPEN","deny":[{"platformUserId":"1","until":"2026-01-01T00:00:00Z"}],"failMode":"OPEN"}`), int64(0), "1")
	f.Add([]byte(`{"mode":"RULES","schedule":{"timeZone":"","windows":[{"days":["XXX"],"from":"24:00","to":"99:99"}]},"allow":[{}]}`), int64(-1), "")
	f.Add([]byte(`{"mode":"LOCKED","schedule":null,"allow":null,"deny":null}`), int64(253402300799), "9")
	f.Fuzz(func(t *testing.T, raw []byte, unix int64, user string) {
		var p Policy
		if json.Unmarshal(raw, &p) != nil {
			return
		}
		checked, err := p.Check()
		if err != nil {
			var v *ValidationError
			if !errors.As(err, &v) || len(v.Issues) == 0 {
				t.Fatalf("error %v is not a validation error with issues", err)
			}
			return
		}
		again, err := checked.Check()
		if err != nil {
			t.Fatalf("a checked policy fails Check: %v", err)
		}
		if diff := cmp.Diff(checked, again); diff != "" {
			t.Fatalf("Check is not idempotent:\n%s", diff)
		}
		c, err := p.Compile()
		if err != nil {
			t.Fatalf("a valid policy does not compile: %v", err)
		}
		at := time.Unix(unix%(400*365*86400), 0)
		in := DecisionInput{PlatformUserID: user, Attributes: PlayerAttributes{Groups: map[string]int{user: 200}, Gamepasses: []string{user}, Badges: []string{user}, Premium: len(user)%2 == 0}}
		d := Decide(c, in, at)
		if !slices.Contains(DecisionReasons, d.Reason) || d.Rule == "" {
			t.Fatalf("decision %+v", d)
		}
	})
}

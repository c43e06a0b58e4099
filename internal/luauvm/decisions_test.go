package luauvm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/client"
	"github.com/gatehouse/gatehouse/internal/apitest"
)

// checkDecisions asks a live Gatehouse (POST /decisions) every decision
// the specs made, with the door's policy set to the spec's, at the same
// instant for the same player, by that policy (currentPolicy: the SDK
// holds the one it was given, whenever it was set): its answer must be
// the SDK's.
func checkDecisions(t *testing.T, api *apitest.API, decisions []decisionLine) {
	if len(decisions) == 0 {
		t.Fatal("no spec made a decision to check against Gatehouse")
	}
	ctx := context.Background()
	c, err := client.New(api.URL, api.Key, client.WithHTTPClient(api.Client))
	if err != nil {
		t.Fatal(err)
	}
	door := api.AccessPointID.String()
	var policy json.RawMessage
	for _, d := range decisions {
		if !bytes.Equal(d.Policy, policy) {
			var p client.Policy
			if err := json.Unmarshal(d.Policy, &p); err != nil {
				t.Fatalf("%q: the policy: %v", d.Spec, err)
			}
			if _, err := c.SetPolicy(ctx, door, p, nil); err != nil {
				t.Fatalf("%q: PUT the policy: %v\n%s", d.Spec, err, d.Policy)
			}
			policy = d.Policy
		}
		at := time.UnixMilli(d.AtMillis).UTC()
		attrs := d.Attributes
		res, err := c.Decide(ctx, client.DecisionRequest{AccessPointID: door, PlatformUserID: d.PlatformUserID,
			ServerJobID: d.ServerJobID, Attributes: &attrs, At: &at, CurrentPolicy: true})
		if err != nil {
			t.Fatalf("%q: POST /decisions: %v", d.Spec, err)
		}
		if got, want := fmt.Sprintf("%t %s %s", d.Allowed, d.Reason, d.Rule), fmt.Sprintf("%t %s %s", res.Allowed == "granted", res.Reason, res.Rule); got != want {
			t.Errorf("%q, %s, player %s: the SDK %q, Gatehouse %q", d.Spec, at.Format(time.RFC3339), d.PlatformUserID, got, want)
		}
	}
	t.Logf("asked a live Gatehouse %d decisions the specs made: the same answers", len(decisions))
}

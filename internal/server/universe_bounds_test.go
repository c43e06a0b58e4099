package server_test

import (
	"net/http"
	"testing"

	"github.com/gatehouse/gatehouse"
)

// TestUniversePoliciesBoundOverHTTP: a PUT that would grow a universe's
// policies past gatehouse.MaxUniversePolicyBytes is a 413 with code
// universe_policies_too_large; the set keeps serving what was stored.
func TestUniversePoliciesBoundOverHTTP(t *testing.T) {
	e := newEnv(t)
	o := e.newPolicyOrg("Acme")
	body := string(mustJSON(t, largestPolicy()))
	for i := 0; ; i++ {
		ap := o.accessPoints[0]
		if i > 0 {
			var err error
			ap, err = e.store.CreateAccessPoint(t.Context(), gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), o.ID, o.locations[0].ID, "Door")
			must(t, err)
		}
		r := e.put(policyPath(ap.ID), o.policyKey, body)
		if r.status == http.StatusOK {
			if i > gatehouse.MaxUniversePolicyBytes/len(body) {
				t.Fatalf("%d of the largest policies stored in one universe", i+1)
			}
			continue
		}
		if r.status != http.StatusRequestEntityTooLarge || r.apiError(t).Code != "universe_policies_too_large" {
			t.Fatalf("policy %d: %d %s", i+1, r.status, r.body)
		}
		break
	}
	if _, r := e.policySet(o.serverKey, "42", ""); r.status != http.StatusOK {
		t.Errorf("the set at its bound: %d", r.status)
	}
}

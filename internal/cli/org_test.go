package cli_test

import "testing"

// TestOrgAndLocationRename: org rename and location rename take the id as
// their argument and the new name as --name; a location's organization is
// found by a query; bad input is a usage error or the validation error.
func TestOrgAndLocationRename(t *testing.T) {
	g := newGH(t)
	var org, hq, renamed record
	g.json(&org, "org", "create", "--name", "Acme")
	g.json(&hq, "location", "create", "--org", org.ID, "--name", "HQ")

	g.json(&renamed, "org", "rename", org.ID, "--name", "Acme Studios")
	if renamed.ID != org.ID || renamed.Name != "Acme Studios" {
		t.Errorf("org rename: %+v", renamed)
	}
	g.json(&renamed, "location", "rename", "--name", "Headquarters", hq.ID)
	if renamed.ID != hq.ID || renamed.Name != "Headquarters" {
		t.Errorf("location rename: %+v", renamed)
	}
	var locs []record
	g.json(&locs, "location", "list", "--org", org.ID)
	if len(locs) != 1 || locs[0].Name != "Headquarters" {
		t.Errorf("after rename, location list: %+v", locs)
	}
	for _, args := range [][]string{
		{"org", "rename", "--name", "x"},                  // no id
		{"org", "rename", "not-a-uuid", "--name", "x"},    // bad id
		{"org", "rename", org.ID},                         // no name
		{"location", "rename", hq.ID, "--name", "a\x1bb"}, // control character
		{"location", "rename", org.ID, "--name", "x"},     // not a location
	} {
		if _, _, err := g.run(nil, args...); err == nil {
			t.Errorf("%q succeeded", args)
		}
	}
}

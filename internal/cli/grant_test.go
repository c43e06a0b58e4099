package cli_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
)

// TestGrantCommands: grant create makes a grant on access points or a
// location, for a duration or until an instant; list filters them;
// revoke ends one (again: unchanged); bad flags are named.
func TestGrantCommands(t *testing.T) {
	g := newBackendGH(t)
	org, aps := g.place("Front door", "Side door")
	type grant struct {
		ID, PlatformUserID string
		AccessPointIDs     []string
		LocationID         *string
		Active             bool
		RevokedAt          *string
	}
	var a, b grant
	g.json(&a, "grant", "create", "--org", org.ID, "--player", "156", "--access-point", aps[0].ID, "--access-point", aps[1].ID, "--for", "1d", "--note", "VIP")
	if len(a.AccessPointIDs) != 2 || !a.Active || a.PlatformUserID != "156" {
		t.Fatalf("created %+v", a)
	}
	g.json(&b, "grant", "create", "--org", org.ID, "--player", "157", "--location", aps[0].LocationID, "--until", "9999-01-01T00:00:00Z",
		"--from", "9998-06-01T00:00:00Z")
	if b.LocationID == nil || b.Active {
		t.Fatalf("created %+v", b)
	}
	out, _, err := g.run(nil, "grant", "list", "--org", org.ID, "--player", "156")
	if err != nil || !strings.HasPrefix(out, a.ID+"  active") || strings.Contains(out, b.ID) {
		t.Errorf("list --player 156 = %q, %v", out, err)
	}
	var listed []grant
	g.json(&listed, "grant", "list", "--org", org.ID, "--active", "false")
	if len(listed) != 1 || listed[0].ID != b.ID {
		t.Errorf("list --active false = %+v", listed)
	}
	out, _, err = g.run(nil, "grant", "revoke", "--org", org.ID, a.ID)
	if err != nil || !strings.Contains(out, "revoked grant "+a.ID) {
		t.Errorf("revoke = %q, %v", out, err)
	}
	var again grant
	g.json(&again, "grant", "revoke", "--org", org.ID, a.ID)
	if again.RevokedAt == nil {
		t.Errorf("revoke again = %+v", again)
	}
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"--player", "156", "--access-point", aps[0].ID}, "--until"},
		{[]string{"--player", "156", "--access-point", aps[0].ID, "--for", "367d"}, "--until"},
		{[]string{"--player", "x", "--access-point", aps[0].ID, "--for", "1h"}, "--player"},
		{[]string{"--player", "156", "--for", "1h"}, "--access-point"},
		{[]string{"--player", "156", "--access-point", "nope", "--for", "1h"}, "--access-point"},
		{[]string{"--player", "156", "--access-point", aps[0].ID, "--location", aps[0].LocationID, "--for", "1h"}, "--location"},
	} {
		_, _, err := g.run(nil, append([]string{"grant", "create", "--org", org.ID}, tc.args...)...)
		var ve *gatehouse.ValidationError
		if !errors.As(err, &ve) || ve.Issues[tc.flag] == nil {
			t.Errorf("grant create %v: %v, want an issue of %s", tc.args, err, tc.flag)
		}
	}
	if _, _, err := g.run(nil, "grant", "revoke", "--org", org.ID, "01a203e2-9b00-7000-8a1b-2c3d4e5f6a01"); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("revoke an unknown grant: %v", err)
	}
}

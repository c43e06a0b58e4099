package cli_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/cli"
)

type userRecord struct {
	ID, Email, Name, Role, CreatedAt string
	Invited                          bool
}

// TestUserCommands: the CLI acts as the system, which may do everything:
// it adds users with roles (the first of an organization is an admin
// whatever is asked), lists them, changes roles and removes users, and
// refuses to leave an organization without an admin. The same email may
// be a user of two organizations; set-password then needs --org.
func TestUserCommands(t *testing.T) {
	g := newGH(t)
	g.env["GATEHOUSE_PASSWORD"] = "correct horse battery staple"
	var acme, beta record
	g.json(&acme, "org", "create", "--name", "Acme")
	g.json(&beta, "org", "create", "--name", "Beta")

	var first, second userRecord
	g.json(&first, "user", "create", "--org", acme.ID, "--email", "Ops@Acme.test", "--name", "Ops", "--role", "viewer")
	if first.Role != "admin" || first.Email != "ops@acme.test" || first.ID == "" || first.CreatedAt == "" || first.Invited {
		t.Errorf("the first user: %+v, want an admin, a member at once (the operator gave the password)", first)
	}
	g.json(&second, "user", "create", "--org", acme.ID, "--email", "door@acme.test", "--role", "operator")
	if second.Role != "operator" {
		t.Errorf("the second user: %+v", second)
	}
	var third userRecord
	g.json(&third, "user", "create", "--org", acme.ID, "--email", "look@acme.test")
	if third.Role != "viewer" {
		t.Errorf("a user with no --role: %+v, want a viewer", third)
	}
	if _, _, err := g.run(nil, "user", "create", "--org", acme.ID, "--email", "x@acme.test", "--role", "owner"); !isUsage(err) {
		t.Errorf("an unknown role: %v", err)
	}

	var list []userRecord
	g.json(&list, "user", "list", "--org", acme.ID)
	var got []string
	for _, u := range list {
		got = append(got, u.Email+" "+u.Role)
	}
	if want := "door@acme.test operator,look@acme.test viewer,ops@acme.test admin"; strings.Join(got, ",") != want {
		t.Errorf("user list = %q, want %q", got, want)
	}
	if out, _, err := g.run(nil, "user", "list", "--org", acme.ID); err != nil || !strings.Contains(out, "operator door@acme.test") {
		t.Errorf("user list for people: %q %v", out, err)
	}

	var changed userRecord
	g.json(&changed, "user", "set-role", "--org", acme.ID, "--email", "DOOR@acme.test", "--role", "admin")
	if changed.Role != "admin" {
		t.Errorf("set-role: %+v", changed)
	}
	g.json(&changed, "user", "set-role", "--org", acme.ID, "--email", "ops@acme.test", "--role", "viewer")
	_, stderr, err := g.run(nil, "user", "set-role", "--org", acme.ID, "--email", "door@acme.test", "--role", "viewer")
	if !errors.Is(err, gatehouse.ErrConflict) || !strings.Contains(err.Error(), "last admin") {
		t.Errorf("demoting the last admin: %v %s", err, stderr)
	}
	if _, _, err := g.run(nil, "user", "remove", "--org", acme.ID, "--email", "door@acme.test"); !errors.Is(err, gatehouse.ErrConflict) {
		t.Errorf("removing the last admin: %v", err)
	}
	var removed userRecord
	g.json(&removed, "user", "remove", "--org", acme.ID, "--email", "look@acme.test")
	if removed.Email != "look@acme.test" {
		t.Errorf("remove: %+v", removed)
	}
	g.json(&list, "user", "list", "--org", acme.ID)
	if len(list) != 2 {
		t.Errorf("after the removal: %+v", list)
	}

	// One email in two organizations.
	var inBeta userRecord
	g.json(&inBeta, "user", "create", "--org", beta.ID, "--email", "ops@acme.test")
	if inBeta.Role != "admin" || inBeta.ID == first.ID {
		t.Errorf("the email in Beta: %+v", inBeta)
	}
	_, stderr, err = g.run(nil, "user", "set-password", "--email", "ops@acme.test")
	if !isUsage(err) || !strings.Contains(err.Error(), "--org") {
		t.Errorf("set-password of an email in two organizations without --org: %v %s", err, stderr)
	}
	var set userRecord
	g.json(&set, "user", "set-password", "--org", beta.ID, "--email", "ops@acme.test")
	if set.ID != inBeta.ID {
		t.Errorf("set-password --org Beta set %+v", set)
	}
	g.json(&set, "user", "set-password", "--email", "door@acme.test")
	if set.ID != second.ID {
		t.Errorf("set-password without --org, one organization: %+v", set)
	}
}

func isUsage(err error) bool {
	var ue *cli.UsageError
	return errors.As(err, &ue)
}

// TestUserInviteCommands: user invite adds a user with no password and
// prints their link once, under --public-url; user list says until when
// it works; user renew-invitation prints another, and refuses a member.
func TestUserInviteCommands(t *testing.T) {
	g := newGH(t)
	var acme record
	g.json(&acme, "org", "create", "--name", "Acme")
	type invited struct {
		userRecord
		InvitationLink, InvitedUntil string
	}
	var first invited
	g.json(&first, "user", "invite", "--org", acme.ID, "--email", "New@Acme.test", "--role", "viewer", "--public-url", "https://gh.example.com/")
	if !first.Invited || first.Role != "admin" || first.InvitedUntil == "" ||
		!strings.HasPrefix(first.InvitationLink, "https://gh.example.com/dashboard/join/") || len(first.InvitationLink) < 80 {
		t.Fatalf("user invite: %+v", first)
	}
	out, _, err := g.run(nil, "user", "list", "--org", acme.ID)
	if err != nil || !strings.Contains(out, "(invited: link until "+first.InvitedUntil+")") || strings.Contains(out, first.InvitationLink) {
		t.Errorf("user list: %q %v", out, err)
	}
	out, _, err = g.run(nil, "user", "renew-invitation", "--org", acme.ID, "--email", "new@acme.test")
	if err != nil || !strings.Contains(out, "\n/dashboard/join/") || strings.Contains(out, first.InvitationLink[len("https://gh.example.com"):]) {
		t.Errorf("user renew-invitation without --public-url: %q %v", out, err)
	}
	if _, _, err := g.run(nil, "user", "invite", "--org", acme.ID, "--email", "x@acme.test", "--public-url", "gh.example.com"); !isUsage(err) {
		t.Errorf("a --public-url that is no URL: %v", err)
	}
	g.env["GATEHOUSE_PASSWORD"] = "correct horse battery staple"
	g.json(new(userRecord), "user", "create", "--org", acme.ID, "--email", "member@acme.test")
	if _, _, err := g.run(nil, "user", "renew-invitation", "--org", acme.ID, "--email", "member@acme.test"); !errors.Is(err, gatehouse.ErrConflict) {
		t.Errorf("a new link for a member: %v, want ErrConflict", err)
	}
}

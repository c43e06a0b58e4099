package cli_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/google/uuid"
	"github.com/pquerna/otp/totp"
)

// TestSecondFactorCommands: the operator requires a second factor of an
// organization and stops requiring it (audited once per change), and
// resets the second factor of a user who lost their phone: the user list
// shows it gone, the audit log names the reset; and signs a user out
// everywhere.
func TestSecondFactorCommands(t *testing.T) {
	g := newGH(t)
	g.env["GATEHOUSE_PASSWORD"] = "correct horse battery staple"
	var acme record
	g.json(&acme, "org", "create", "--name", "Acme")
	var u struct {
		ID           string
		SecondFactor bool
	}
	g.json(&u, "user", "create", "--org", acme.ID, "--email", "ops@acme.test")
	enrol(t, g.db, uuid.MustParse(acme.ID), uuid.MustParse(u.ID), "ops@acme.test")
	var list []struct {
		Email        string
		SecondFactor bool
	}
	g.json(&list, "user", "list", "--org", acme.ID)
	if len(list) != 1 || !list[0].SecondFactor {
		t.Fatalf("user list: %+v", list)
	}

	var req struct{ SecondFactorRequired bool }
	for _, arg := range []string{"required", "required", "optional"} {
		g.json(&req, "org", "set-second-factor", acme.ID, arg)
		if req.SecondFactorRequired != (arg == "required") {
			t.Errorf("set-second-factor %s: %+v", arg, req)
		}
	}
	if _, _, err := g.run(nil, "org", "set-second-factor", acme.ID, "yes"); !isUsage(err) {
		t.Errorf("set-second-factor yes: %v", err)
	}
	var sso struct{ ProviderRequired, SecondFactorRequired bool }
	for _, arg := range []string{"required", "optional"} {
		g.json(&sso, "org", "set-sso", acme.ID, arg)
		if sso.ProviderRequired != (arg == "required") || sso.SecondFactorRequired {
			t.Errorf("set-sso %s: %+v", arg, sso)
		}
	}

	g.json(&u, "user", "reset-second-factor", "--org", acme.ID, "--email", "OPS@acme.test")
	if u.SecondFactor {
		t.Errorf("after the reset: %+v", u)
	}
	if _, _, err := g.run(nil, "user", "reset-second-factor", "--org", acme.ID, "--email", "nobody@acme.test"); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("an unknown user: %v", err)
	}
	// Signed in (the factor reset), then signed out everywhere.
	db, err := app.Open(context.Background(), g.db)
	if err != nil {
		t.Fatal(err)
	}
	_, _, _, err = db.Service(time.Now).SignIn(context.Background(), "ops@acme.test", g.env["GATEHOUSE_PASSWORD"], "192.0.2.0")
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if out, _, err := g.run(nil, "user", "end-sessions", "--org", acme.ID, "--email", "ops@acme.test"); err != nil || !strings.Contains(out, "1 sessions ended") {
		t.Errorf("end-sessions: %q %v", out, err)
	}
	var entries []struct{ Action string }
	g.json(&entries, "audit", "list", "--org", acme.ID)
	counts := map[string]int{}
	for _, e := range entries {
		counts[e.Action]++
	}
	if counts["user.second_factor_reset"] != 1 || counts["organization.second_factor_required"] != 2 || counts["user.second_factor_enrolled"] != 1 ||
		counts["user.sessions_ended"] != 1 {
		t.Errorf("audit log: %v", counts)
	}
}

// enrol enrols a TOTP second factor for the user, as they would in the
// dashboard.
func enrol(t *testing.T, path string, orgID, userID uuid.UUID, email string) {
	t.Helper()
	ctx := context.Background()
	db, err := app.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	svc := db.Service(time.Now)
	as := gatehouse.WithActor(ctx, gatehouse.Actor{Type: gatehouse.ActorUser, ID: userID, Label: email, OrgID: orgID, Role: gatehouse.RoleAdmin})
	e, err := svc.BeginEnrolment(as)
	if err != nil {
		t.Fatal(err)
	}
	code, err := totp.GenerateCode(e.Secret, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := svc.EnrolSecondFactor(as, e.Pending, code); err != nil {
		t.Fatal(err)
	}
}

package service_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// TestRolesInTheService: the service, not the pages, decides what a
// dashboard user may do:
//   - an admin, everything;
//   - an operator looks, and issues and cancels commands;
//   - a viewer only looks.
//
// A user acting on another organization finds nothing, and the system (the
// CLI) may do everything.
func TestRolesInTheService(t *testing.T) {
	f := newService(t, nil)
	bg := context.Background()
	loc, err := f.svc.CreateLocation(bg, f.org.ID, "HQ")
	if err != nil {
		t.Fatal(err)
	}
	annex, err := f.svc.CreateLocation(bg, f.org.ID, "Annex")
	if err != nil {
		t.Fatal(err)
	}
	door, err := f.svc.CreateAccessPoint(bg, f.org.ID, loc.ID, "Door")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []gatehouse.Location{loc, annex} {
		if _, err := f.svc.SetLocationUniverse(bg, f.org.ID, l.ID, "42"); err != nil {
			t.Fatal(err)
		}
	}
	key, _, err := f.svc.CreateAPIKey(bg, gatehouse.NewAPIKey{OrgID: f.org.ID, Name: "k", Scopes: []gatehouse.Scope{gatehouse.ScopeEventsRead}})
	if err != nil {
		t.Fatal(err)
	}
	admin, err := f.svc.CreateUser(bg, gatehouse.NewUser{OrgID: f.org.ID, Email: "admin@acme.test", Password: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}
	actions := []struct {
		name  string
		least gatehouse.Role // the least trusted role that may
		do    func(ctx context.Context) error
	}{
		{"list events", gatehouse.RoleViewer, func(ctx context.Context) error {
			_, err := f.svc.ListEvents(ctx, f.org.ID, gatehouse.EventFilter{Limit: 10})
			return err
		}},
		{"list locations", gatehouse.RoleViewer, func(ctx context.Context) error { _, err := f.svc.AllLocations(ctx, f.org.ID, false); return err }},
		{"list keys", gatehouse.RoleAdmin, func(ctx context.Context) error { _, err := f.svc.ListAPIKeys(ctx, f.org.ID); return err }},
		{"create a key", gatehouse.RoleAdmin, func(ctx context.Context) error {
			_, _, err := f.svc.CreateAPIKey(ctx, gatehouse.NewAPIKey{OrgID: f.org.ID, Name: "x", Scopes: []gatehouse.Scope{gatehouse.ScopeEventsRead}})
			return err
		}},
		{"change a key's rate", gatehouse.RoleAdmin, func(ctx context.Context) error {
			_, err := f.svc.SetAPIKeyRate(ctx, f.org.ID, key.ID, &gatehouse.Rate{Count: 100, Per: time.Second})
			return err
		}},
		{"revoke a key", gatehouse.RoleAdmin, func(ctx context.Context) error { _, err := f.svc.RevokeAPIKey(ctx, f.org.ID, key.ID); return err }},
		{"create a location", gatehouse.RoleAdmin, func(ctx context.Context) error { _, err := f.svc.CreateLocation(ctx, f.org.ID, "New"); return err }},
		{"rename a location", gatehouse.RoleAdmin, func(ctx context.Context) error {
			_, err := f.svc.RenameLocation(ctx, f.org.ID, loc.ID, "HQ")
			return err
		}},
		{"create an access point", gatehouse.RoleAdmin, func(ctx context.Context) error {
			_, err := f.svc.CreateAccessPoint(ctx, f.org.ID, loc.ID, "Door")
			return err
		}},
		{"rename an access point", gatehouse.RoleAdmin, func(ctx context.Context) error {
			_, err := f.svc.RenameAccessPoint(ctx, f.org.ID, door.ID, "Front door")
			return err
		}},
		{"move an access point", gatehouse.RoleAdmin, func(ctx context.Context) error {
			_, err := f.svc.MoveAccessPoint(ctx, f.org.ID, door.ID, annex.ID)
			return err
		}},
		{"set a location's universe", gatehouse.RoleAdmin, func(ctx context.Context) error {
			_, err := f.svc.SetLocationUniverse(ctx, f.org.ID, loc.ID, "42")
			return err
		}},
		{"issue and cancel a command", gatehouse.RoleOperator, func(ctx context.Context) error {
			c, _, err := f.svc.IssueCommand(ctx, f.org.ID, gatehouse.CommandRequest{AccessPointID: door.ID, Scope: gatehouse.ScopeUniverse}, "")
			if err == nil {
				_, err = f.svc.CancelCommand(ctx, f.org.ID, c.ID)
			}
			return err
		}},
		{"list commands", gatehouse.RoleViewer, func(ctx context.Context) error {
			_, err := f.svc.ListCommands(ctx, f.org.ID, gatehouse.CommandFilter{Limit: 10})
			return err
		}},
		{"set, list and remove a messaging key", gatehouse.RoleAdmin, func(ctx context.Context) error {
			_, err := f.svc.SetMessaging(ctx, f.org.ID, "42", "an-open-cloud-key-0001")
			if err == nil {
				_, err = f.svc.ListMessaging(ctx, f.org.ID)
			}
			if err == nil {
				err = f.svc.RemoveMessaging(ctx, f.org.ID, "42")
			}
			return err
		}},
		{"list users", gatehouse.RoleAdmin, func(ctx context.Context) error { _, err := f.svc.ListUsers(ctx, f.org.ID); return err }},
		{"add a user", gatehouse.RoleAdmin, func(ctx context.Context) error {
			_, _, err := f.svc.InviteUser(ctx, gatehouse.NewUser{OrgID: f.org.ID, Email: gatehouse.NewID().String() + "@acme.test"})
			return err
		}},
		{"change a role", gatehouse.RoleAdmin, func(ctx context.Context) error {
			_, err := f.svc.SetUserRole(ctx, f.org.ID, admin.Email, gatehouse.RoleAdmin, nil)
			return err
		}},
		{"set a password", gatehouse.RoleAdmin, func(ctx context.Context) error {
			_, err := f.svc.SetPassword(ctx, f.org.ID, admin.Email, "correct horse battery")
			return err
		}},
		{"grant and revoke a timed pass", gatehouse.RoleAdmin, func(ctx context.Context) error {
			until := gatehouse.Time(f.now.Add(time.Hour))
			g, _, err := f.svc.CreateGrant(ctx, f.org.ID, gatehouse.GrantRequest{PlatformUserID: "156", AccessPointIDs: []uuid.UUID{door.ID}, Until: &until})
			if err == nil {
				_, err = f.svc.RevokeGrant(ctx, f.org.ID, g.ID)
			}
			return err
		}},
		{"archive and restore a location", gatehouse.RoleAdmin, func(ctx context.Context) error {
			_, err := f.svc.ArchiveLocation(ctx, f.org.ID, annex.ID)
			if err == nil {
				_, err = f.svc.RestoreLocation(ctx, f.org.ID, annex.ID)
			}
			return err
		}},
		{"archive and restore an access point", gatehouse.RoleAdmin, func(ctx context.Context) error {
			_, err := f.svc.ArchiveAccessPoint(ctx, f.org.ID, door.ID)
			if err == nil {
				_, err = f.svc.RestoreAccessPoint(ctx, f.org.ID, door.ID)
			}
			return err
		}},
		{"delete an access point and a location", gatehouse.RoleAdmin, func(ctx context.Context) error {
			mistake, err := f.svc.CreateLocation(bg, f.org.ID, "Mistake")
			if err != nil {
				return err
			}
			ap, err := f.svc.CreateAccessPoint(bg, f.org.ID, mistake.ID, "Mistake")
			if err != nil {
				return err
			}
			if err := f.svc.DeleteAccessPoint(ctx, f.org.ID, ap.ID); err != nil {
				return err
			}
			return f.svc.DeleteLocation(ctx, f.org.ID, mistake.ID)
		}},
		{"list grants", gatehouse.RoleViewer, func(ctx context.Context) error {
			_, err := f.svc.ListGrants(ctx, f.org.ID, gatehouse.GrantFilter{Limit: 10})
			return err
		}},
	}
	for _, role := range gatehouse.Roles {
		ctx := gatehouse.WithActor(bg, gatehouse.Actor{Type: gatehouse.ActorUser, ID: admin.ID, OrgID: f.org.ID, Role: role})
		for _, a := range actions {
			err := a.do(ctx)
			switch {
			case !role.Below(a.least):
				if err != nil {
					t.Errorf("%s may %s: %v", role, a.name, err)
				}
			case !errors.Is(err, gatehouse.ErrForbidden):
				t.Errorf("%s may not %s: %v, want ErrForbidden", role, a.name, err)
			}
		}
	}
	foreign := gatehouse.WithActor(bg, gatehouse.Actor{Type: gatehouse.ActorUser, OrgID: f.other.ID, Role: gatehouse.RoleAdmin})
	for _, a := range actions {
		if err := a.do(foreign); !errors.Is(err, gatehouse.ErrNotFound) {
			t.Errorf("an admin of another organization may %s: %v, want ErrNotFound", a.name, err)
		}
	}
	if _, err := f.svc.RemoveUser(gatehouse.WithActor(bg, gatehouse.Actor{Type: gatehouse.ActorUser, OrgID: f.org.ID, Role: gatehouse.RoleOperator}), f.org.ID, admin.Email); !errors.Is(err, gatehouse.ErrForbidden) {
		t.Errorf("an operator removes a user: %v", err)
	}
}

// TestSignInAcrossOrganizations: a password that matches the users of
// two organizations signs nobody in until one is chosen; the choice is
// bound to the matched users and lasts [gatehouse.ChoiceLifetime].
func TestSignInAcrossOrganizations(t *testing.T) {
	f := newService(t, nil)
	ctx := context.Background()
	var users []gatehouse.User
	for _, org := range []gatehouse.Organization{f.org, f.other} {
		u, err := f.svc.CreateUser(ctx, gatehouse.NewUser{OrgID: org.ID, Email: "both@example.test", Password: "correct horse battery"})
		if err != nil {
			t.Fatal(err)
		}
		users = append(users, u)
	}
	_, _, _, err := f.svc.SignIn(ctx, "Both@example.test", "correct horse battery", "")
	var choice *gatehouse.ChoiceError
	if !errors.As(err, &choice) || !errors.Is(err, gatehouse.ErrChooseOrganization) || len(choice.Choices) != 2 ||
		choice.Choices[0].Organization.Name != "Acme" || choice.Choices[1].Organization.Name != "Rival" {
		t.Fatalf("a password matching two organizations: %v", err)
	}
	if _, _, _, err := f.svc.ChooseSignIn(ctx, choice.Token, gatehouse.NewID()); !errors.Is(err, gatehouse.ErrBadCredentials) {
		t.Errorf("choosing a user not offered: %v", err)
	}
	if _, _, _, err := f.svc.ChooseSignIn(ctx, choice.Token+"x", users[1].ID); !errors.Is(err, gatehouse.ErrBadCredentials) {
		t.Errorf("an altered token: %v", err)
	}
	_, token, who, err := f.svc.ChooseSignIn(ctx, choice.Token, users[1].ID)
	if err != nil || who.ID != users[1].ID {
		t.Fatalf("choose Rival: %+v %v", who, err)
	}
	if _, u, err := f.svc.FindSession(ctx, token); err != nil || u.OrgID != f.other.ID {
		t.Errorf("the session is not Rival's user: %+v %v", u, err)
	}
	f.now = f.now.Add(gatehouse.ChoiceLifetime)
	if _, _, _, err := f.svc.ChooseSignIn(ctx, choice.Token, users[0].ID); !errors.Is(err, gatehouse.ErrBadCredentials) {
		t.Errorf("an expired choice: %v", err)
	}
	if _, _, _, err := f.svc.SignIn(ctx, "both@example.test", "wrong password!!", ""); !errors.Is(err, gatehouse.ErrBadCredentials) {
		t.Errorf("a wrong password: %v", err)
	}
}

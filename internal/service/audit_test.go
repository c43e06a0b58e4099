package service_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// auditLog returns the organization's whole log, newest first, read as
// the system.
func (f *serviceFixture) auditLog(t *testing.T, org uuid.UUID) []gatehouse.AuditEntry {
	t.Helper()
	page, err := f.svc.ListAuditLog(context.Background(), org, gatehouse.AuditFilter{Limit: gatehouse.MaxLimit})
	if err != nil {
		t.Fatal(err)
	}
	return page.Entries
}

// only returns the one entry of action in log, failing unless there is
// exactly one.
func only(t *testing.T, log []gatehouse.AuditEntry, action gatehouse.AuditAction) gatehouse.AuditEntry {
	t.Helper()
	var found []gatehouse.AuditEntry
	for _, e := range log {
		if e.Action == action {
			found = append(found, e)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d entries of %s, want exactly 1: %+v", len(found), action, found)
	}
	return found[0]
}

func TestServiceAuditsEveryChangeOnceWithItsActor(t *testing.T) {
	f := newService(t, nil)
	sys := context.Background()
	admin, err := f.svc.CreateUser(sys, gatehouse.NewUser{OrgID: f.org.ID, Email: "admin@acme.test", Password: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}
	asAdmin := gatehouse.WithActor(sys, gatehouse.Actor{Type: gatehouse.ActorUser, ID: admin.ID, Label: admin.Email,
		OrgID: f.org.ID, Role: gatehouse.RoleAdmin, RequestID: "req-admin", ClientAddress: "198.51.100.4"})
	keyID := gatehouse.NewID()
	asKey := gatehouse.WithActor(sys, gatehouse.Actor{Type: gatehouse.ActorKey, ID: keyID, Label: "gk_abcdefgh", OrgID: f.org.ID, RequestID: "req-key"})

	l, err := f.svc.CreateLocation(asAdmin, f.org.ID, "HQ")
	if err != nil {
		t.Fatal(err)
	}
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(f.svc.RenameLocation(asAdmin, f.org.ID, l.ID, "Head office"))
	door, err := f.svc.CreateAccessPoint(asKey, f.org.ID, l.ID, "Door")
	must(door, err)
	annex, err := f.svc.CreateLocation(asAdmin, f.org.ID, "Annex")
	must(annex, err)
	for range 2 { // the second time changes nothing and records nothing
		must(f.svc.RenameAccessPoint(asAdmin, f.org.ID, door.ID, "Front door"))
		must(f.svc.MoveAccessPoint(asAdmin, f.org.ID, door.ID, annex.ID))
	}
	k, raw, err := f.svc.CreateAPIKey(asAdmin, gatehouse.NewAPIKey{OrgID: f.org.ID, Name: "ci", Scopes: []gatehouse.Scope{gatehouse.ScopeAuditRead}})
	must(k, err)
	must(f.svc.RevokeAPIKey(asAdmin, f.org.ID, k.ID))
	_, link, err := f.svc.InviteUser(asAdmin, gatehouse.NewUser{OrgID: f.org.ID, Email: "op@acme.test", Role: gatehouse.RoleViewer})
	must(nil, err)
	_, link2, err := f.svc.RenewInvitation(asAdmin, f.org.ID, "op@acme.test")
	must(nil, err)
	must(f.svc.SetUserRole(asAdmin, f.org.ID, "op@acme.test", gatehouse.RoleOperator, nil))
	must(f.svc.SetPassword(asAdmin, f.org.ID, "op@acme.test", "another long password"))
	must(f.svc.RemoveUser(asAdmin, f.org.ID, "op@acme.test"))
	must(f.svc.RenameOrganization(sys, f.org.ID, "Acme Studios"))
	web := gatehouse.WithActor(sys, gatehouse.Actor{Type: gatehouse.ActorUser, RequestID: "req-web", ClientAddress: "192.0.2.9"})
	_, _, _, err = f.svc.SignIn(web, "admin@acme.test", "correct horse battery", "192.0.2.0/24")
	must(nil, err)
	_, _, _, err = f.svc.SignIn(web, "ADMIN@acme.test", "wrong password!!", "192.0.2.0/24")
	if !errors.Is(err, gatehouse.ErrBadCredentials) {
		t.Fatalf("wrong password: %v", err)
	}
	_, _, _, err = f.svc.SignIn(web, "nobody@acme.test", "wrong password!!", "192.0.2.0/24")
	if !errors.Is(err, gatehouse.ErrBadCredentials) {
		t.Fatalf("unknown email: %v", err)
	}

	log := f.auditLog(t, f.org.ID)
	userActor := func(e gatehouse.AuditEntry) {
		t.Helper()
		if a := e.Actor; a.Type != gatehouse.ActorUser || a.ID == nil || *a.ID != admin.ID || a.Label != admin.Email ||
			e.RequestID != "req-admin" || e.ClientAddress != "198.51.100.4" || e.OrgID != f.org.ID {
			t.Errorf("%s: actor %+v, request %q from %q", e.Action, e.Actor, e.RequestID, e.ClientAddress)
		}
	}
	if created := filter(log, gatehouse.AuditLocationCreated); len(created) != 2 {
		t.Errorf("location.created entries: %+v", created)
	} else {
		userActor(created[0])
		userActor(created[1])
	}
	userActor(only(t, log, gatehouse.AuditLocationRenamed))
	userActor(only(t, log, gatehouse.AuditAPIKeyRevoked))
	apRenamed, apMoved := only(t, log, gatehouse.AuditAccessPointRenamed), only(t, log, gatehouse.AuditAccessPointMoved)
	userActor(apRenamed)
	userActor(apMoved)
	if apRenamed.Target != (gatehouse.AuditTarget{Type: gatehouse.TargetAccessPoint, ID: door.ID, Name: "Front door"}) ||
		apRenamed.Changes["name"] != (gatehouse.AuditChange{From: "Door", To: "Front door"}) || len(apRenamed.Changes) != 1 {
		t.Errorf("access point renamed: %+v", apRenamed)
	}
	if apMoved.Target.ID != door.ID || len(apMoved.Changes) != 1 ||
		apMoved.Changes["locationId"] != (gatehouse.AuditChange{From: l.ID.String(), To: annex.ID.String()}) {
		t.Errorf("access point moved: %+v", apMoved)
	}
	if added := filter(log, gatehouse.AuditUserAdded); len(added) != 2 || added[0].Target.Name != "op@acme.test" {
		t.Errorf("user.added entries: %+v", added)
	} else {
		userActor(added[0]) // newest first: the admin's invitation, after the operator's admin
	}
	if invited := only(t, log, gatehouse.AuditUserInvited); invited.Changes["invitedUntil"].To == "" {
		t.Errorf("user.invited says nothing of the links: %+v", invited)
	} else {
		userActor(invited)
	}
	userActor(only(t, log, gatehouse.AuditUserRoleChanged))
	userActor(only(t, log, gatehouse.AuditUserPasswordSet))
	userActor(only(t, log, gatehouse.AuditUserRemoved))
	created := only(t, log, gatehouse.AuditAPIKeyCreated)
	userActor(created)
	if created.Target.ID != k.ID || created.Changes["prefix"].To != k.Prefix || created.Changes["scopes"].To != "audit:read" {
		t.Errorf("key created: %+v", created)
	}
	for _, e := range log {
		for field, c := range e.Changes {
			if c.From == raw || c.To == raw || c.To == admin.PasswordHash || strings.Contains(c.To, link) || strings.Contains(c.To, link2) {
				t.Errorf("%s records a secret in %s", e.Action, field)
			}
		}
	}
	if ap := only(t, log, gatehouse.AuditAccessPointCreated); ap.Actor.Type != gatehouse.ActorKey || *ap.Actor.ID != keyID ||
		ap.Actor.Label != "gk_abcdefgh" || ap.RequestID != "req-key" {
		t.Errorf("access point by a key: %+v", ap)
	}
	if org := only(t, log, gatehouse.AuditOrganizationRenamed); org.Actor.Type != gatehouse.ActorSystem || org.Actor.ID != nil ||
		org.Changes["name"] != (gatehouse.AuditChange{From: "Acme", To: "Acme Studios"}) {
		t.Errorf("organization renamed by the CLI: %+v", org)
	}
	only(t, log, gatehouse.AuditOrganizationCreated)
	if len(filter(log, gatehouse.AuditUserAdded)) != 2 {
		t.Errorf("user.added entries: %+v", filter(log, gatehouse.AuditUserAdded))
	}
	in := only(t, log, gatehouse.AuditSignedIn)
	if *in.Actor.ID != admin.ID || in.Target.ID != admin.ID || in.ClientAddress != "192.0.2.9" || in.RequestID != "req-web" {
		t.Errorf("sign-in: %+v", in)
	}
	failed := only(t, log, gatehouse.AuditSignInFailed)
	if *failed.Actor.ID != admin.ID || failed.Actor.Label != admin.Email || len(failed.Changes) != 0 {
		t.Errorf("failed sign-in: %+v", failed)
	}
	// The unknown email's failure is no organization's.
	if n := len(filter(f.auditLog(t, f.other.ID), gatehouse.AuditSignInFailed)); n != 0 {
		t.Errorf("another organization sees %d failed sign-ins", n)
	}
}

func filter(log []gatehouse.AuditEntry, action gatehouse.AuditAction) []gatehouse.AuditEntry {
	var out []gatehouse.AuditEntry
	for _, e := range log {
		if e.Action == action {
			out = append(out, e)
		}
	}
	return out
}

func TestServiceRefusedChangeLeavesNoAuditEntry(t *testing.T) {
	f := newService(t, nil)
	sys := context.Background()
	admin, err := f.svc.CreateUser(sys, gatehouse.NewUser{OrgID: f.org.ID, Email: "admin@acme.test", Password: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}
	viewer := gatehouse.WithActor(sys, gatehouse.Actor{Type: gatehouse.ActorUser, ID: gatehouse.NewID(), OrgID: f.org.ID, Role: gatehouse.RoleViewer})
	before := len(f.auditLog(t, f.org.ID))
	for what, err := range map[string]error{
		"duplicate email": second(f.svc.CreateUser(sys, gatehouse.NewUser{OrgID: f.org.ID, Email: admin.Email, Password: "correct horse battery"})),
		"last admin":      second(f.svc.RemoveUser(sys, f.org.ID, admin.Email)),
		"demote last":     second(f.svc.SetUserRole(sys, f.org.ID, admin.Email, gatehouse.RoleViewer, nil)),
		"viewer":          second(f.svc.CreateLocation(viewer, f.org.ID, "HQ")),
		"bad name":        second(f.svc.CreateLocation(sys, f.org.ID, " ")),
	} {
		if err == nil {
			t.Errorf("%s: no error", what)
		}
	}
	if got := len(f.auditLog(t, f.org.ID)); got != before {
		t.Errorf("refused changes appended %d entries", got-before)
	}
}

func second[T any](_ T, err error) error { return err }

func TestServiceAuditLogNeedsAnAdmin(t *testing.T) {
	f := newService(t, nil)
	for _, role := range []gatehouse.Role{gatehouse.RoleOperator, gatehouse.RoleViewer} {
		ctx := gatehouse.WithActor(context.Background(), gatehouse.Actor{Type: gatehouse.ActorUser, ID: gatehouse.NewID(), OrgID: f.org.ID, Role: role})
		if _, err := f.svc.ListAuditLog(ctx, f.org.ID, gatehouse.AuditFilter{Limit: 10}); !errors.Is(err, gatehouse.ErrForbidden) {
			t.Errorf("%s reads the audit log: %v", role, err)
		}
	}
	admin := gatehouse.WithActor(context.Background(), gatehouse.Actor{Type: gatehouse.ActorUser, ID: gatehouse.NewID(), OrgID: f.org.ID, Role: gatehouse.RoleAdmin})
	if _, err := f.svc.ListAuditLog(admin, f.other.ID, gatehouse.AuditFilter{Limit: 10}); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("an admin reads another organization's log: %v", err)
	}
}

package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

// testInvitations: a user added with an invitation has no password and
// the link's hash finds it; a new link replaces the old; using an
// unexpired link proves the user, sets the password and deletes it, once;
// an expired link, another organization's and a proven user's are
// refused; the operator's password proves the user and ends the
// invitation; removing the user removes it.
func testInvitations(t *testing.T, f *fixture) {
	acme, rival, _ := f.opsOfAcme()
	inv, token := gatehouse.NewInvitation(acme.ID, gatehouse.NewID(), f.now)
	u, err := f.s.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: acme.ID, Email: "New@Acme.test", Name: "Nova"}, &inv)
	must(t, err)
	if u.Proven || !u.ProvenAt.IsZero() || u.PasswordHash != "" || !u.InvitedUntil.Equal(inv.ExpiresAt) {
		t.Fatalf("invited: %+v", u)
	}
	got, who, err := f.s.FindInvitation(ctx, gatehouse.InvitationHash(token))
	if err != nil || who.ID != u.ID || got.UserID != u.ID || got.OrgID != acme.ID || !got.ExpiresAt.Equal(inv.ExpiresAt) || !who.InvitedUntil.Equal(inv.ExpiresAt) {
		t.Fatalf("found %+v %+v %v", got, who, err)
	}
	if _, _, err := f.s.FindInvitation(ctx, gatehouse.InvitationHash(token+"x")); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("an unknown link: %v", err)
	}
	users, err := f.s.ListUsers(ctx, acme.ID)
	must(t, err)
	if len(users) != 2 || users[0].ID != u.ID || !users[0].InvitedUntil.Equal(inv.ExpiresAt) || !users[1].InvitedUntil.IsZero() {
		t.Errorf("listed: %+v", users)
	}
	added := f.log(acme.ID, gatehouse.AuditFilter{Limit: 10})[0]
	if added.Action != gatehouse.AuditUserAdded || added.Changes["invitedUntil"].To != gatehouse.FormatTime(inv.ExpiresAt) {
		t.Errorf("user.added: %+v", added)
	}

	// A new link replaces the old; another organization's reaches nothing.
	renewed, newToken := gatehouse.NewInvitation(acme.ID, u.ID, f.now.Add(time.Hour))
	if _, err := f.s.SetInvitation(ctx, gatehouse.SystemEntry(gatehouse.AuditUserInvited), gatehouse.Invitation{OrgID: rival.ID, UserID: u.ID, Hash: renewed.Hash,
		ExpiresAt: renewed.ExpiresAt, CreatedAt: renewed.CreatedAt}); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("a link for another organization's user: %v", err)
	}
	again, err := f.s.SetInvitation(ctx, gatehouse.SystemEntry(gatehouse.AuditUserInvited), renewed)
	if err != nil || !again.InvitedUntil.Equal(renewed.ExpiresAt) {
		t.Fatalf("renewed: %+v %v", again, err)
	}
	if _, _, err := f.s.FindInvitation(ctx, gatehouse.InvitationHash(token)); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("the replaced link: %v", err)
	}
	if e := f.log(acme.ID, gatehouse.AuditFilter{Limit: 10})[0]; e.Action != gatehouse.AuditUserInvited || e.Target.ID != u.ID {
		t.Errorf("user.invited: %+v", e)
	}

	// Used: by another organization, no; through the replaced link, no;
	// expired, no; in time, once.
	entry := gatehouse.SystemEntry(gatehouse.AuditInvitationAccepted)
	if _, err := f.s.UseInvitation(ctx, entry, rival.ID, u.ID, renewed.Hash, "hash", f.now); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("used through another organization: %v", err)
	}
	if _, err := f.s.UseInvitation(ctx, entry, acme.ID, u.ID, inv.Hash, "hash", f.now); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("used through the replaced link: %v", err)
	}
	if _, err := f.s.UseInvitation(ctx, entry, acme.ID, u.ID, renewed.Hash, "hash", renewed.ExpiresAt); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("used as it expires: %v", err)
	}
	used := f.now.Add(2 * time.Hour).Truncate(time.Millisecond)
	joined, err := f.s.UseInvitation(ctx, entry, acme.ID, u.ID, renewed.Hash, "hash", used)
	if err != nil || !joined.Proven || !joined.ProvenAt.Equal(used) || joined.ProvenBy != gatehouse.ProvenByLink || joined.PasswordHash != "hash" || !joined.InvitedUntil.IsZero() {
		t.Fatalf("used: %+v %v", joined, err)
	}
	if _, err := f.s.UseInvitation(ctx, entry, acme.ID, u.ID, [32]byte{}, "other", used); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("used twice: %v", err)
	}
	if _, _, err := f.s.FindInvitation(ctx, gatehouse.InvitationHash(newToken)); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("the used link: %v", err)
	}
	if _, err := f.s.SetInvitation(ctx, gatehouse.SystemEntry(gatehouse.AuditUserInvited), renewed); !errors.Is(err, gatehouse.ErrConflict) {
		t.Errorf("a link for a member: %v", err)
	}

	// Through the provider (no link's hash): proven by the provider.
	inv, _ = gatehouse.NewInvitation(acme.ID, gatehouse.NewID(), f.now)
	w, err := f.s.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: acme.ID, Email: "sso@acme.test"}, &inv)
	must(t, err)
	if w, err = f.s.UseInvitation(ctx, entry, acme.ID, w.ID, [32]byte{}, "", used); err != nil || w.ProvenBy != gatehouse.ProvenByProvider || w.PasswordHash != "" {
		t.Errorf("used through the provider: %+v %v", w, err)
	}

	// The operator's password proves an invitation and ends its link;
	// removing an invited user takes the link with it.
	for _, end := range []string{"password", "remove"} {
		inv, token := gatehouse.NewInvitation(acme.ID, gatehouse.NewID(), f.now)
		v, err := f.s.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: acme.ID, Email: end + "@acme.test"}, &inv)
		must(t, err)
		if end == "password" {
			v, err = f.s.SetUserPassword(ctx, gatehouse.SystemEntry(gatehouse.AuditUserPasswordSet), acme.ID, v.Email, "set")
			if err != nil || !v.Proven || v.ProvenBy != gatehouse.ProvenByOperator || !v.InvitedUntil.IsZero() {
				t.Errorf("the operator's password: %+v %v", v, err)
			}
		} else {
			_, err = f.s.RemoveUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserRemoved), acme.ID, v.Email)
			must(t, err)
		}
		if _, _, err := f.s.FindInvitation(ctx, gatehouse.InvitationHash(token)); !errors.Is(err, gatehouse.ErrNotFound) {
			t.Errorf("after the %s, the link: %v", end, err)
		}
	}
}

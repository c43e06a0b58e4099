package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

// testSessionDevices: a session keeps its id, browser, address and last
// use, written at most once a SessionSeenEvery; its user lists their
// unexpired ones, last seen first, and ends one or all, audited with the
// count; nobody reaches them through another organization.
func testSessionDevices(t *testing.T, f *fixture) {
	o, rival, u := f.opsOfAcme()
	laptop, laptopToken := sessions.New(u.ID, f.now)
	laptop.UserAgent, laptop.ClientAddress = "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0", "192.0.2.7"
	phone, phoneToken := sessions.New(u.ID, f.now.Add(time.Minute))
	phone.UserAgent, phone.ClientAddress = "Mozilla/5.0 (iPhone) Safari/605.1", "2001:db8::7"
	old, _ := sessions.New(u.ID, f.now.Add(-gatehouse.SessionLifetime-time.Hour)) // expired
	for _, s := range []gatehouse.Session{laptop, phone, old} {
		must(t, f.s.CreateSession(ctx, gatehouse.SystemEntry(gatehouse.AuditSignedIn), s))
	}
	got, _, err := f.s.FindSession(ctx, sessions.Hash(laptopToken), f.now)
	must(t, err)
	if got.ID != laptop.ID || got.UserAgent != laptop.UserAgent || got.ClientAddress != laptop.ClientAddress || !got.LastSeenAt.Equal(laptop.CreatedAt) {
		t.Errorf("found %+v, want %+v", got, laptop)
	}

	// Seen within the minute: not written; after it: written.
	must(t, f.s.SeenSession(ctx, o.ID, laptop.TokenHash, f.now.Add(30*time.Second)))
	if got, _, _ := f.s.FindSession(ctx, sessions.Hash(laptopToken), f.now); !got.LastSeenAt.Equal(laptop.CreatedAt) {
		t.Errorf("seen within a minute: %v", got.LastSeenAt)
	}
	later := f.now.Add(5 * time.Minute).Truncate(time.Millisecond)
	must(t, f.s.SeenSession(ctx, o.ID, laptop.TokenHash, later))
	list, err := f.s.ListSessions(ctx, o.ID, u.ID, f.now.Add(2*time.Minute))
	must(t, err)
	if len(list) != 2 || list[0].ID != laptop.ID || !list[0].LastSeenAt.Equal(later) || list[1].ID != phone.ID || list[1].UserAgent != phone.UserAgent {
		t.Errorf("listed %+v", list)
	}
	if list, _ := f.s.ListSessions(ctx, rival.ID, u.ID, f.now); len(list) != 0 {
		t.Errorf("listed through another organization: %+v", list)
	}

	// Ending: not through another organization; one; then all.
	if n, err := f.s.EndSessions(ctx, gatehouse.SystemEntry(gatehouse.AuditSessionsEnded), rival.ID, u.ID, phone.ID); n != 0 || err != nil {
		t.Errorf("ended through another organization: %d %v", n, err)
	}
	n, err := f.s.EndSessions(ctx, gatehouse.SystemEntry(gatehouse.AuditSessionsEnded), o.ID, u.ID, phone.ID)
	if n != 1 || err != nil {
		t.Errorf("ended one: %d %v", n, err)
	}
	if _, _, err := f.s.FindSession(ctx, sessions.Hash(phoneToken), f.now.Add(2*time.Minute)); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("the ended session: %v", err)
	}
	if _, _, err := f.s.FindSession(ctx, sessions.Hash(laptopToken), f.now.Add(2*time.Minute)); err != nil {
		t.Errorf("the other session: %v", err)
	}
	if n, err := f.s.EndSessions(ctx, gatehouse.SystemEntry(gatehouse.AuditSessionsEnded), o.ID, u.ID, gatehouse.NewID()); n != 0 || err != nil {
		t.Errorf("an unknown session: %d %v", n, err)
	}
	if n, err := f.s.EndSessions(ctx, gatehouse.SystemEntry(gatehouse.AuditSessionsEnded), o.ID, u.ID, old.ID); n != 0 || err != nil {
		t.Errorf("an expired session: %d %v, want none ended", n, err)
	}
	if n, err := f.s.EndSessions(ctx, gatehouse.SystemEntry(gatehouse.AuditSessionsEnded), o.ID, u.ID, [16]byte{}); n != 1 || err != nil {
		t.Errorf("ended all: %d %v, want 1 (the laptop's; the expired one is not counted)", n, err)
	}
	entries := f.log(o.ID, gatehouse.AuditFilter{Action: gatehouse.AuditSessionsEnded})
	if len(entries) != 2 || entries[0].Changes["sessions"].To != "1" || entries[1].Changes["sessions"].To != "1" || entries[0].Target.ID != u.ID {
		t.Errorf("entries %+v", entries)
	}
	if n := len(f.log(rival.ID, gatehouse.AuditFilter{Action: gatehouse.AuditSessionsEnded})); n != 0 {
		t.Errorf("the rival's log has %d", n)
	}
}

// opsOfAcme makes the organizations Acme and Rival, and a user of Acme.
func (f *fixture) opsOfAcme() (acme, rival gatehouse.Organization, ops gatehouse.User) {
	f.t.Helper()
	acme, rival = f.org("Acme"), f.org("Rival")
	ops, err := f.s.CreateUser(ctx, gatehouse.SystemEntry(gatehouse.AuditUserAdded), gatehouse.User{OrgID: acme.ID, Email: "ops@acme.test", Name: "Ops", PasswordHash: "x"}, nil)
	must(f.t, err)
	return acme, rival, ops
}

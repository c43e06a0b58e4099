package storetest

import (
	"bytes"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/go-cmp/cmp"
)

// testMessagingKeys: a universe's sealed key is stored, replaced, listed
// by hint only, found, removed, and audited by hint; another
// organization's universe of the same id is another row.
func testMessagingKeys(t *testing.T, f *fixture) {
	a, b := f.org("Acme"), f.org("Beta")
	set := func(org gatehouse.Organization, universe string, sealed []byte, hint string) gatehouse.MessagingKey {
		t.Helper()
		k, err := f.s.SetMessagingKey(ctx, userEntry(gatehouse.AuditMessagingSet, a.ID), org.ID, universe, sealed, hint)
		must(t, err)
		return k
	}
	if keys, err := f.s.ListMessagingKeys(ctx, a.ID); err != nil || keys == nil || len(keys) != 0 {
		t.Fatalf("ListMessagingKeys of none = %#v, %v; want an empty list", keys, err)
	}
	k42 := set(a, "42", []byte("sealed-42"), "ab12")
	if k42 != (gatehouse.MessagingKey{UniverseID: "42", Hint: "ab12", CreatedAt: gatehouse.Time(f.now)}) {
		t.Errorf("SetMessagingKey = %+v", k42)
	}
	f.now = f.now.Add(time.Minute)
	k9 := set(a, "9", []byte("sealed-9"), "zz99")
	set(b, "42", []byte("beta-42"), "bb42")
	f.now = f.now.Add(time.Minute)
	// Replacing a key: new sealed bytes, hint and time.
	k42 = set(a, "42", []byte("sealed-42 again"), "cd34")
	if time.Time(k42.CreatedAt) != f.now || k42.Hint != "cd34" {
		t.Errorf("replaced key = %+v", k42)
	}
	keys, err := f.s.ListMessagingKeys(ctx, a.ID)
	must(t, err)
	if diff := cmp.Diff([]gatehouse.MessagingKey{k9, k42}, keys); diff != "" {
		t.Errorf("ListMessagingKeys, by universe id numerically (-want +got)\n%s", diff)
	}
	for org, want := range map[gatehouse.Organization]string{a: "sealed-42 again", b: "beta-42"} {
		got, err := f.s.FindMessagingKey(ctx, org.ID, "42")
		if err != nil || !bytes.Equal(got, []byte(want)) {
			t.Errorf("FindMessagingKey(%s, 42) = %q, %v; want %q", org.Name, got, err, want)
		}
	}
	_, err = f.s.FindMessagingKey(ctx, b.ID, "9")
	wantErr(t, "another organization's universe", err, gatehouse.ErrNotFound)
	_, err = f.s.FindMessagingKey(ctx, gatehouse.NewID(), "42")
	wantErr(t, "an unknown organization", err, gatehouse.ErrNotFound)
	_, err = f.s.SetMessagingKey(ctx, userEntry(gatehouse.AuditMessagingSet, a.ID), gatehouse.NewID(), "42", []byte("x"), "x")
	wantErr(t, "set for an unknown organization", err, gatehouse.ErrNotFound)

	f.now = f.now.Add(time.Minute)
	err = f.s.RemoveMessagingKey(ctx, userEntry(gatehouse.AuditMessagingRemoved, a.ID), b.ID, "9")
	wantErr(t, "remove another organization's key", err, gatehouse.ErrNotFound)
	must(t, f.s.RemoveMessagingKey(ctx, userEntry(gatehouse.AuditMessagingRemoved, a.ID), a.ID, "42"))
	_, err = f.s.FindMessagingKey(ctx, a.ID, "42")
	wantErr(t, "a removed key", err, gatehouse.ErrNotFound)
	if got, err := f.s.FindMessagingKey(ctx, b.ID, "42"); err != nil || string(got) != "beta-42" {
		t.Errorf("removing Acme's key touched Beta's: %q, %v", got, err)
	}
	err = f.s.RemoveMessagingKey(ctx, userEntry(gatehouse.AuditMessagingRemoved, a.ID), a.ID, "42")
	wantErr(t, "remove a removed key", err, gatehouse.ErrNotFound)

	// The audit log: one entry per change, in the organization of the
	// change, naming the universe, with hints and never the sealed bytes.
	type line struct {
		Action  gatehouse.AuditAction
		Target  gatehouse.AuditTarget
		Changes map[string]gatehouse.AuditChange
	}
	var got []line
	for _, e := range f.log(a.ID, gatehouse.AuditFilter{}) {
		if e.Action == gatehouse.AuditMessagingSet || e.Action == gatehouse.AuditMessagingRemoved {
			delete(e.Changes, "note")
			got = append(got, line{e.Action, e.Target, e.Changes})
		}
	}
	target := func(u string) gatehouse.AuditTarget {
		return gatehouse.AuditTarget{Type: gatehouse.TargetMessaging, Name: u}
	}
	want := []line{
		{gatehouse.AuditMessagingRemoved, target("42"), map[string]gatehouse.AuditChange{"hint": {From: "cd34"}}},
		{gatehouse.AuditMessagingSet, target("42"), map[string]gatehouse.AuditChange{"hint": {From: "ab12", To: "cd34"}}},
		{gatehouse.AuditMessagingSet, target("9"), map[string]gatehouse.AuditChange{"hint": {To: "zz99"}}},
		{gatehouse.AuditMessagingSet, target("42"), map[string]gatehouse.AuditChange{"hint": {To: "ab12"}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Acme's audit log of messaging (-want +got)\n%s", diff)
	}
	if n := len(f.log(b.ID, gatehouse.AuditFilter{Action: gatehouse.AuditMessagingSet})); n != 1 {
		t.Errorf("Beta's log has %d messaging.set entries, want 1", n)
	}
}

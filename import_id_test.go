package gatehouse_test

import (
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// A line without an id gets the same id however it is written, and
// another id when anything in it differs; one with an id keeps it.
func TestDecodeImportEventDerivesStableIDs(t *testing.T) {
	now := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	org, other := uuid.MustParse("01a2179e-0000-7000-8000-000000000001"), uuid.MustParse("01a2179e-0000-7000-8000-000000000002")
	ap := "01a2179e-0000-7000-8000-0000000000aa"
	id := func(org uuid.UUID, line string) uuid.UUID {
		t.Helper()
		ev, _, err := gatehouse.DecodeImportEvent(org, []byte(line), now)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		return ev.ID
	}
	base := id(org, `{"type":"ACCESS_DENIED","occurredAt":"2026-11-20T10:00:00Z","accessPointId":"`+ap+`","allowed":"denied","platformUserId":"42"}`)
	if base.Version() != 7 || base.Variant() != uuid.RFC4122 {
		t.Errorf("derived id %s is not a UUIDv7", base)
	}
	for _, same := range []string{
		`{"platformUserId":"42","allowed":"denied","accessPointId":"` + ap + `","occurredAt":"2026-11-20T10:00:00.000Z","type":"ACCESS_DENIED"}`,
		`{ "type": "ACCESS_DENIED", "occurredAt": "2026-11-20T11:00:00+01:00", "accessPointId": "` + ap + `", "allowed": "denied", "platformUserId": "42" }`,
	} {
		if got := id(org, same); got != base {
			t.Errorf("%s: %s, want %s", same, got, base)
		}
	}
	for _, differs := range []string{
		`{"type":"ACCESS_DENIED","occurredAt":"2026-11-20T10:00:00.001Z","accessPointId":"` + ap + `","allowed":"denied","platformUserId":"42"}`,
		`{"type":"ACCESS_DENIED","occurredAt":"2026-11-20T10:00:00Z","accessPointId":"` + ap + `","allowed":"denied","platformUserId":"43"}`,
		`{"type":"ACCESS_DENIED","occurredAt":"2026-11-20T10:00:00Z","accessPointId":"` + ap + `","allowed":"denied","platformUserId":"42","reason":"BLOCKED"}`,
	} {
		if got := id(org, differs); got == base {
			t.Errorf("%s: the same id as another event", differs)
		}
	}
	if id(other, `{"type":"ACCESS_DENIED","occurredAt":"2026-11-20T10:00:00Z","accessPointId":"`+ap+`","allowed":"denied","platformUserId":"42"}`) == base {
		t.Error("another organization's line has the same id")
	}
	given := "01a2179e-1111-7000-8000-000000000001"
	if got := id(org, `{"id":"`+given+`","type":"ACCESS_GRANTED","occurredAt":"2026-11-20T10:00:00Z","accessPointId":"`+ap+`"}`); got.String() != given {
		t.Errorf("a line's own id became %s", got)
	}
	// The derived id sorts by occurredAt, as a UUIDv7 does.
	ev, _, _ := gatehouse.DecodeImportEvent(org, []byte(`{"type":"ACCESS_GRANTED","occurredAt":"2026-11-20T10:00:00Z","accessPointId":"`+ap+`"}`), now)
	sec, _ := ev.ID.Time().UnixTime()
	if sec != time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC).Unix() {
		t.Errorf("the derived id's time is %d", sec)
	}
}

// A derived id is the same from one release to the next (a file without
// ids imported before and after an upgrade is stored once), and a
// player's display name, which says nothing of the attempt, changes it
// not.
func TestDerivedIDsStayPut(t *testing.T) {
	org := uuid.MustParse("01a203e2-9b00-7000-8a1b-2c3d4e5f6a01")
	denied, reason, player := gatehouse.Denied, "BANNED", "156"
	ev := gatehouse.NewEvent{Type: gatehouse.EventAccessDenied, OccurredAt: time.Date(2026, 11, 20, 11, 0, 0, 0, time.UTC),
		AccessPointID: uuid.MustParse("01a203e2-9b00-7000-8a1b-2c3d4e5f6a02"), Allowed: &denied, Reason: &reason, PlatformUserID: &player}
	const before = "01a1f89c-fb80-7ebc-b75f-3734d4db3996" // derived by the release before display names
	if got := gatehouse.DeriveEventID(org, ev).String(); got != before {
		t.Errorf("the derived id is %s, was %s", got, before)
	}
	name := "Nightowl"
	ev.PlatformUserName = &name
	if got := gatehouse.DeriveEventID(org, ev).String(); got != before {
		t.Errorf("a display name changes the derived id to %s", got)
	}
}

// A display name shows: blank fillers, invisible formatting and nothing
// at all are refused; a name with an emoji joined by ZWJ is kept.
func TestCheckPlayerName(t *testing.T) {
	for name, ok := range map[string]bool{
		"Nightowl": true, " Skye ": true, "👩\u200d🚀 Nova": true, "李小龙": true,
		"": false, "   ": false, "\u200b": false, "\u3164": false, "\u2800\u2800": false, "\ufeffBob": false,
		"Bob\u00ad": false, "Bob\U000E0041": false, "Bob\u202e": false, "Tab\tName": false,
	} {
		got, err := gatehouse.CheckPlayerName("platformUserName", name)
		if (err == nil) != ok {
			t.Errorf("%q: %q, %v; want accepted %v", name, got, err, ok)
		}
	}
}

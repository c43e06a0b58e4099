package gatehouse_test

import (
	"errors"
	"maps"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
)

func parse(t *testing.T, query string) (gatehouse.EventQuery, error) {
	t.Helper()
	v, err := url.ParseQuery(query)
	if err != nil {
		t.Fatal(err)
	}
	return gatehouse.ParseEventQuery(v)
}

func issueKeys(err error) []string {
	var ve *gatehouse.ValidationError
	if !errors.As(err, &ve) {
		return nil
	}
	return slices.Sorted(maps.Keys(ve.Issues))
}

func ptr[T any](v T) *T { return &v }

func date(s string) *time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return ptr(t.UTC())
}

func TestParseEventQueryAccepts(t *testing.T) {
	id := uuid.MustParse("0193a5b2-7c1e-7d3f-9a4b-5c6d7e8f9a0b")
	for _, tc := range []struct {
		query string
		want  gatehouse.EventQuery
	}{
		{"", gatehouse.EventQuery{Filter: gatehouse.EventFilter{Limit: 50}}},
		{"accessPointId=" + id.String(), gatehouse.EventQuery{Filter: gatehouse.EventFilter{AccessPointID: &id, Limit: 50}}},
		{"locationId=0193A5B2-7C1E-7D3F-9A4B-5C6D7E8F9A0B", gatehouse.EventQuery{Filter: gatehouse.EventFilter{LocationID: &id, Limit: 50}}},
		{"type=ACCESS_DENIED", gatehouse.EventQuery{Filter: gatehouse.EventFilter{Types: []gatehouse.EventType{"ACCESS_DENIED"}, Limit: 50}}},
		{"type=ACCESS_DENIED,REMOTE_UNLOCK&type=ACCESS_DENIED", gatehouse.EventQuery{Filter: gatehouse.EventFilter{Types: []gatehouse.EventType{"ACCESS_DENIED", "REMOTE_UNLOCK"}, Limit: 50}}},
		{"type=FOO,ACCESS_GRANTED&type=bar", gatehouse.EventQuery{Filter: gatehouse.EventFilter{Types: []gatehouse.EventType{"ACCESS_GRANTED"}, Limit: 50}, IgnoredTypes: []string{"FOO", "bar"}}},
		{"type=FOO", gatehouse.EventQuery{Filter: gatehouse.EventFilter{Limit: 50}, IgnoredTypes: []string{"FOO"}}},
		{"allowed=denied", gatehouse.EventQuery{Filter: gatehouse.EventFilter{Allowed: ptr(gatehouse.Denied), Limit: 50}}},
		{"platformUserId=123456789", gatehouse.EventQuery{Filter: gatehouse.EventFilter{PlatformUserID: ptr("123456789"), Limit: 50}}},
		{"reason=OUTSIDE_SCHEDULE", gatehouse.EventQuery{Filter: gatehouse.EventFilter{Reason: ptr("OUTSIDE_SCHEDULE"), Limit: 50}}},
		{"scope=PLAYER", gatehouse.EventQuery{Filter: gatehouse.EventFilter{Scope: ptr(gatehouse.ScopePlayer), Limit: 50}}},
		{"q=50%25_off", gatehouse.EventQuery{Filter: gatehouse.EventFilter{Q: "50%_off", Limit: 50}}},
		{"limit=1", gatehouse.EventQuery{Filter: gatehouse.EventFilter{Limit: 1}}},
		{"limit=500", gatehouse.EventQuery{Filter: gatehouse.EventFilter{Limit: 500}}},
		{"cursor=abc", gatehouse.EventQuery{Filter: gatehouse.EventFilter{Limit: 50}, Cursor: "abc"}},
		// An empty value counts as absent.
		{"allowed=&scope=&limit=&dateFrom=&q=&type=", gatehouse.EventQuery{Filter: gatehouse.EventFilter{Limit: 50}}},
		// Dates: RFC 3339 with any offset, or a day meaning 00:00 UTC; from inclusive, to exclusive.
		{"dateFrom=2026-11-20", gatehouse.EventQuery{Filter: gatehouse.EventFilter{From: date("2026-11-20T00:00:00Z"), Limit: 50}}},
		{"dateTo=2026-11-20T12:00:00.123456%2B02:00", gatehouse.EventQuery{Filter: gatehouse.EventFilter{To: date("2026-11-20T10:00:00.123Z"), Limit: 50}}},
		{"dateFrom=2026-11-20&dateTo=2026-11-20", gatehouse.EventQuery{Filter: gatehouse.EventFilter{From: date("2026-11-20T00:00:00Z"), To: date("2026-11-20T00:00:00Z"), Limit: 50}}},
	} {
		got, err := parse(t, tc.query)
		if err != nil {
			t.Errorf("%q: %v", tc.query, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%q: (-want +got)\n%s", tc.query, diff)
		}
	}
}

func TestParseEventQueryNarrowsTo366Days(t *testing.T) {
	for _, tc := range []struct {
		query    string
		from     *time.Time
		narrowed bool
	}{
		{"dateFrom=2025-01-01&dateTo=2026-01-02", date("2025-01-01T00:00:00Z"), false},                  // exactly 366 days
		{"dateFrom=2025-01-01&dateTo=2026-01-02T00:00:00.001Z", date("2025-01-01T00:00:00.001Z"), true}, // 366 days and 1 ms
		{"dateFrom=2024-12-31&dateTo=2026-01-02", date("2025-01-01T00:00:00Z"), true},                   // 367 days
		{"dateFrom=2000-01-01&dateTo=2026-11-20T08:30:00Z", date("2025-11-19T08:30:00Z"), true},         // years
		{"dateFrom=2000-01-01", date("2000-01-01T00:00:00Z"), false},                                    // one bound: no narrowing
	} {
		got, err := parse(t, tc.query)
		if err != nil {
			t.Fatalf("%q: %v", tc.query, err)
		}
		if !got.Filter.From.Equal(*tc.from) || got.Narrowed != tc.narrowed {
			t.Errorf("%q: from %v narrowed %v; want %v %v", tc.query, got.Filter.From, got.Narrowed, tc.from, tc.narrowed)
		}
	}
}

func TestParseEventQueryRejects(t *testing.T) {
	for _, tc := range []struct {
		query string
		keys  []string
	}{
		{"accessPointId=42", []string{"accessPointId"}},
		{"locationId={0193a5b2-7c1e-7d3f-9a4b-5c6d7e8f9a0b}", []string{"locationId"}},
		{"locationId=0193a5b27c1e7d3f9a4b5c6d7e8f9a0b", []string{"locationId"}},
		{"allowed=yes", []string{"allowed"}},
		{"allowed=GRANTED", []string{"allowed"}},
		{"scope=player", []string{"scope"}},
		{"reason=outside_schedule", []string{"reason"}},
		{"dateFrom=yesterday", []string{"dateFrom"}},
		{"dateTo=2026-11-20T12:00:00", []string{"dateTo"}}, // no offset
		{"dateFrom=2026-11-21&dateTo=2026-11-20", []string{"dateFrom"}},
		{"limit=0", []string{"limit"}},
		{"limit=501", []string{"limit"}},
		{"limit=ten", []string{"limit"}},
		{"limit=1.5", []string{"limit"}},
		{"allowed=granted&allowed=denied", []string{"allowed"}},
		{"platformUserID=1", []string{"platformUserID"}},
		{"q=a%00b", []string{"q"}},
		{"q=" + string(make([]byte, 201)), []string{"q"}},
		{"platformUserId=%ff", []string{"platformUserId"}},
		{"dateTo=9999-12-31T23:59:59.999-23:59", []string{"dateTo"}},   // 10000-01-01 in UTC
		{"dateFrom=0000-01-01T00:00:00%2B00:01", []string{"dateFrom"}}, // year -1 in UTC
		// Every problem at once.
		{"allowed=maybe&scope=ALL&limit=0&accessPointId=x&dateFrom=x", []string{"accessPointId", "allowed", "dateFrom", "limit", "scope"}},
	} {
		_, err := parse(t, tc.query)
		if !errors.Is(err, gatehouse.ErrInvalid) {
			t.Errorf("%q: err = %v, want ErrInvalid", tc.query, err)
			continue
		}
		if diff := cmp.Diff(tc.keys, issueKeys(err)); diff != "" {
			t.Errorf("%q: issue keys (-want +got)\n%s", tc.query, diff)
		}
	}
}

func TestDigestIgnoresOrderAndPaging(t *testing.T) {
	org := gatehouse.NewID()
	a, _ := parse(t, "type=ACCESS_DENIED,REMOTE_UNLOCK&limit=5&allowed=denied")
	b, _ := parse(t, "type=REMOTE_UNLOCK&type=ACCESS_DENIED&allowed=denied&limit=50&cursor=x")
	if a.Filter.Digest(org) != b.Filter.Digest(org) {
		t.Error("same filters in another order or with another limit have different digests")
	}
	for _, other := range []string{"type=ACCESS_DENIED&allowed=denied", "type=ACCESS_DENIED,REMOTE_UNLOCK", "type=ACCESS_DENIED,REMOTE_UNLOCK&allowed=denied&q=x"} {
		c, _ := parse(t, other)
		if a.Filter.Digest(org) == c.Filter.Digest(org) {
			t.Errorf("%q has the digest of other filters", other)
		}
	}
	if a.Filter.Digest(org) == a.Filter.Digest(gatehouse.NewID()) {
		t.Error("the digest does not depend on the organization")
	}
	// A present-but-empty string is not an absent one.
	empty := gatehouse.EventFilter{PlatformUserID: ptr("")}
	if empty.Digest(org) == (gatehouse.EventFilter{}).Digest(org) {
		t.Error("empty and absent platformUserId share a digest")
	}
}

// Every date a query accepts can be written back in meta as RFC 3339 in UTC
// with a four-digit year, whatever offset it was sent with.
func TestParseEventQueryDatesStayWritable(t *testing.T) {
	for _, s := range []string{"0000-01-01", "0000-01-01T00:00:00Z", "9999-12-31", "9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999+23:59"} {
		q, err := parse(t, "dateFrom="+url.QueryEscape(s))
		if err != nil {
			t.Errorf("dateFrom=%s: %v", s, err)
			continue
		}
		out := gatehouse.FormatTime(*q.Filter.From)
		if back, err := time.Parse(time.RFC3339, out); err != nil || !back.Equal(*q.Filter.From) {
			t.Errorf("dateFrom=%s is written as %s, which does not read back: %v", s, out, err)
		}
	}
}

package server_test

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

type feedBody struct {
	Data []struct {
		ID         string `json:"id"`
		OccurredAt string `json:"occurredAt"`
	} `json:"data"`
	NextCursor      *string    `json:"nextCursor"`
	CompleteThrough *time.Time `json:"completeThrough"`
}

// feed GETs /events/feed with a query and expects 200.
func (e *env) feed(key, query string) feedBody {
	e.t.Helper()
	var b feedBody
	e.getOK("/api/consumer/v1/events/feed?"+query, key, &b)
	if b.NextCursor == nil || b.CompleteThrough == nil {
		e.t.Fatalf("GET /events/feed?%s: nextCursor or completeThrough missing", query)
	}
	return b
}

// settled waits (at most 20 s) until the feed from the start holds n
// events for key: on PostgreSQL an event reaches the feed once every
// older transaction of the cluster ended, and other packages' tests share
// the cluster.
func (e *env) settled(key string, n int) {
	e.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); len(e.feed(key, "limit=500").Data) < n; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			e.t.Fatalf("the feed does not hold %d events after 20 s", n)
		}
	}
}

// The feed hands out events in the order they were stored, whatever
// their occurredAt (a late event comes after the ones stored before it),
// each once; its cursor never ends, and the next call with it returns
// what was stored since. Another organization's feed holds none of them.
func TestFeedFollowsTheStorageOrder(t *testing.T) {
	e := newEnv(t)
	o, rival := e.newOrg("Acme"), e.newOrg("Rival")
	first := []gatehouse.NewEvent{e.ev(o.accessPoints[0], gatehouse.EventAccessDenied, 5), e.ev(o.accessPoints[1], gatehouse.EventAccessGranted, 1)}
	e.ingest(o, first...)
	late := e.ev(o.accessPoints[0], gatehouse.EventAccessDenied, 600) // occurred long before, stored last
	e.ingest(o, late)
	e.ingest(rival, e.ev(rival.accessPoints[0], gatehouse.EventAccessDenied, 1))
	e.settled(o.readKey, 3)

	var got []string
	query := "limit=2"
	for range 3 {
		b := e.feed(o.readKey, query)
		for _, d := range b.Data {
			got = append(got, d.ID)
		}
		query = "limit=2&after=" + url.QueryEscape(*b.NextCursor)
	}
	want := []string{first[0].ID.String(), first[1].ID.String(), late.ID.String()}
	if !slices.Equal(got, want) {
		t.Fatalf("feed read %v, want the storage order %v", got, want)
	}
	// Caught up: an empty page with the same cursor, then what comes next.
	caughtUp := e.feed(o.readKey, query)
	if len(caughtUp.Data) != 0 || "limit=2&after="+url.QueryEscape(*caughtUp.NextCursor) != query {
		t.Fatalf("caught up: %d events, cursor %s", len(caughtUp.Data), *caughtUp.NextCursor)
	}
	next := e.ev(o.accessPoints[1], gatehouse.EventAccessGranted, 0)
	e.ingest(o, next)
	e.settled(o.readKey, 4)
	if b := e.feed(o.readKey, query); len(b.Data) != 1 || b.Data[0].ID != next.ID.String() {
		t.Errorf("after the next ingest: %+v, want only %s", b.Data, next.ID)
	}
	if b := e.feed(o.readKey, "accessPointId="+o.accessPoints[0].ID.String()); len(b.Data) != 2 {
		t.Errorf("filtered by access point: %d events, want 2", len(b.Data))
	}
	if b := e.feed(rival.readKey, ""); len(b.Data) != 1 {
		t.Errorf("the rival's feed: %d events, want its own 1", len(b.Data))
	}
}

// The feed refuses what GET /events would ignore or take: q and dates
// are not its parameters, an unknown type would widen it, and a cursor it
// did not make is an error naming after.
func TestFeedRefusesWhatItCannotHonour(t *testing.T) {
	e := newEnv(t)
	o := e.newOrg("Acme")
	for query, field := range map[string]string{
		"q=gate":                 "q",
		"dateFrom=2026-11-01":    "dateFrom",
		"cursor=abc":             "cursor",
		"type=ACCESS_DENIEDD":    "type",
		"after=bm90IGEgY3Vyc29y": "after",
		"after=a&after=b":        "after",
		"limit=501":              "limit",
	} {
		r := e.get("/api/consumer/v1/events/feed?"+query, o.readKey)
		if r.status != http.StatusBadRequest {
			t.Errorf("?%s: %d, want 400", query, r.status)
			continue
		}
		if issues := r.apiError(t).Issues; issues[field] == nil {
			t.Errorf("?%s: issues %v, want one for %s", query, issues, field)
		}
	}
	if r := e.get("/api/consumer/v1/events/feed", e.newKey(o.ID, gatehouse.ScopeEventsWrite)); r.status != http.StatusForbidden {
		t.Errorf("a key without events:read: %d, want 403", r.status)
	}
}

// A feed cursor shows nothing of the position it holds, which counts
// every organization's events: A's cursor before and after B stores 505
// events and A one is ciphertext of one length, not the first form's
// text, and it opens for A alone (B's key gets a 400 naming after). A
// cursor of the first form, handed out before cursors were sealed, is
// still read; written by hand past where the feed stood when cursors
// began to be sealed (here, a new database: its start), it reads from
// there, so comparing it with A's events says nothing of the events
// stored since.
func TestFeedCursorsRevealNoOtherOrganization(t *testing.T) {
	e := newEnv(t)
	a, b := e.newOrg("Acme"), e.newOrg("Rival")
	before := *e.feed(a.readKey, "").NextCursor
	var theirs []gatehouse.NewEvent
	for range 505 {
		theirs = append(theirs, e.ev(b.accessPoints[0], gatehouse.EventAccessDenied, 1))
	}
	e.ingest(b, theirs...)
	mine := e.ev(a.accessPoints[0], gatehouse.EventAccessGranted, 1)
	e.ingest(a, mine)
	e.settled(a.readKey, 1)
	page := e.feed(a.readKey, "after="+url.QueryEscape(before))
	after := *page.NextCursor
	if len(page.Data) != 1 || page.Data[0].ID != mine.ID.String() {
		t.Fatalf("A's feed after its first cursor: %+v", page.Data)
	}
	for _, c := range []string{before, after} {
		raw, err := base64.RawURLEncoding.DecodeString(c)
		if err != nil || len(c) != len(before) || strings.HasPrefix(string(raw), "f1.") {
			t.Errorf("cursor %q: %q, want ciphertext of a fixed length", c, raw)
		}
	}
	r := e.get("/api/consumer/v1/events/feed?after="+url.QueryEscape(after), b.readKey)
	if r.status != http.StatusBadRequest || r.apiError(t).Issues["after"] == nil {
		t.Errorf("A's cursor with B's key: %d %s, want a 400 naming after", r.status, r.body)
	}

	legacy := func(p gatehouse.FeedPosition) string {
		return base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "f1.%d.%d", p.Txn, p.Seq))
	}
	for _, p := range []gatehouse.FeedPosition{{}, {Seq: 1 << 40}, {Txn: 1 << 62, Seq: 1}} {
		page := e.feed(a.readKey, "after="+legacy(p))
		if len(page.Data) != 1 || page.Data[0].ID != mine.ID.String() {
			t.Errorf("a cursor of the first form at %+v: %d events, want A's one from the feed's start", p, len(page.Data))
		}
	}
}

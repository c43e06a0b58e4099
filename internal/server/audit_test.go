package server_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
)

// auditList is the body of GET /audit-log as a client reads it.
type auditList struct {
	Data []struct {
		ID     string `json:"id"`
		At     string `json:"at"`
		Action string `json:"action"`
		Actor  struct {
			Type, ID, Email, Prefix string
		} `json:"actor"`
		Target struct {
			Type, ID, Name string
		} `json:"target"`
		Changes   map[string]struct{ From, To string } `json:"changes"`
		RequestID string                               `json:"requestId"`
	} `json:"data"`
	NextCursor *string `json:"nextCursor"`
}

func (e *env) auditLog(t *testing.T, key, query string) auditList {
	t.Helper()
	r := e.get("/api/consumer/v1/audit-log?"+query, key)
	if r.status != http.StatusOK {
		t.Fatalf("audit-log?%s: %d %s", query, r.status, r.body)
	}
	var l auditList
	r.decode(t, &l)
	return l
}

func TestAuditLogListsTheOrganizationsChangesNewestFirst(t *testing.T) {
	e := newEnv(t)
	a, b := e.newOrg("Acme"), e.newOrg("Beta")
	key := e.newKey(a.ID, gatehouse.ScopeAuditRead)
	e.clock.Advance(time.Minute)
	admin := gatehouse.NewID()
	renamed := gatehouse.SystemEntry(gatehouse.AuditLocationRenamed)
	renamed.Actor = gatehouse.AuditActor{Type: gatehouse.ActorUser, ID: &admin, Label: "admin@acme.test"}
	renamed.RequestID = "req-1"
	if _, err := e.store.RenameLocation(context.Background(), renamed, a.ID, a.locations[0].ID, "Head office"); err != nil {
		t.Fatal(err)
	}

	all := e.auditLog(t, key, "")
	// newOrg: the organization, 2 locations, 4 access points, a user, 2
	// keys; then this test's key and the rename.
	if len(all.Data) != 12 || all.NextCursor != nil {
		t.Fatalf("%d entries, next %v", len(all.Data), all.NextCursor)
	}
	top := all.Data[0]
	if top.Action != "location.renamed" || top.Actor.Type != "user" || top.Actor.Email != "admin@acme.test" || top.Actor.ID != admin.String() ||
		top.Target.ID != a.locations[0].ID.String() || top.Changes["name"].From != "HQ" || top.Changes["name"].To != "Head office" || top.RequestID != "req-1" {
		t.Errorf("newest entry = %+v", top)
	}
	for _, en := range all.Data {
		if en.Target.ID == b.ID.String() || en.Target.Name == "Beta" {
			t.Errorf("Beta's entry in Acme's log: %+v", en)
		}
	}
	if got := e.auditLog(t, key, "action=location.renamed"); len(got.Data) != 1 {
		t.Errorf("action filter: %d entries", len(got.Data))
	}
	if got := e.auditLog(t, key, "actorId="+admin.String()); len(got.Data) != 1 {
		t.Errorf("actorId filter: %d entries", len(got.Data))
	}
	if got := e.auditLog(t, key, "targetId="+a.accessPoints[1].ID.String()); len(got.Data) != 1 || got.Data[0].Action != "access_point.created" {
		t.Errorf("targetId filter: %+v", got.Data)
	}
	since := url.QueryEscape(e.clock.Now().Add(-time.Second).Format(time.RFC3339))
	if got := e.auditLog(t, key, "dateFrom="+since); len(got.Data) != 1 {
		t.Errorf("dateFrom filter: %d entries", len(got.Data))
	}
	if got := e.auditLog(t, key, "targetId="+b.locations[0].ID.String()); len(got.Data) != 0 {
		t.Errorf("another organization's record: %+v", got.Data)
	}

	// Pages of 5 walk the same 12 entries in the same order.
	var ids []string
	query := "limit=5"
	for {
		page := e.auditLog(t, key, query)
		for _, en := range page.Data {
			ids = append(ids, en.ID)
		}
		if page.NextCursor == nil {
			break
		}
		query = "limit=5&cursor=" + url.QueryEscape(*page.NextCursor)
	}
	if len(ids) != 12 || ids[0] != all.Data[0].ID || ids[11] != all.Data[11].ID || ids[5] != all.Data[5].ID {
		t.Errorf("paged ids differ from the whole list: %v", ids)
	}
}

func TestAuditLogRefusesBadQueries(t *testing.T) {
	e := newEnv(t)
	a := e.newOrg("Acme")
	key := e.newKey(a.ID, gatehouse.ScopeAuditRead)
	page := e.auditLog(t, key, "limit=2")
	cursor := url.QueryEscape(*page.NextCursor)
	for query, field := range map[string]string{
		"action=key.deleted":                    "action",
		"actorId=42":                            "actorId",
		"targetId=x":                            "targetId",
		"dateFrom=yesterday":                    "dateFrom",
		"dateFrom=2026-11-20&dateTo=2026-11-01": "dateFrom",
		"limit=501":                             "limit",
		"order=asc":                             "order",
		"cursor=forged":                         "cursor",
		"limit=2&action=user.added&cursor=" + cursor: "cursor", // issued for other filters
	} {
		r := e.get("/api/consumer/v1/audit-log?"+query, key)
		if r.status != http.StatusBadRequest {
			t.Errorf("%s: status %d", query, r.status)
			continue
		}
		if issues := r.apiError(t).Issues; issues[field] == nil {
			t.Errorf("%s: issues %v, want %s", query, issues, field)
		}
	}
	if r := e.get("/api/consumer/v1/audit-log", ""); r.status != http.StatusUnauthorized {
		t.Errorf("no key: %d", r.status)
	}
	if r := e.do("DELETE", "/api/consumer/v1/audit-log", key, nil); r.status != http.StatusMethodNotAllowed {
		t.Errorf("DELETE: %d", r.status)
	}
}

package sqlstore_test

import (
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/google/uuid"
)

func TestGrantPage(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	rows := []gatehouse.Grant{{ID: uuid.New(), CreatedAt: gatehouse.Time(at)}, {ID: uuid.New(), CreatedAt: gatehouse.Time(at.Add(-time.Second))}, {ID: uuid.New()}}
	p := sqlstore.GrantPage(rows, 2)
	if len(p.Grants) != 2 || p.Next == nil || *p.Next != rows[1].Key() {
		t.Errorf("a row beyond the page: %d grants, next %v; want 2 and the last kept's key", len(p.Grants), p.Next)
	}
	p = sqlstore.GrantPage(rows[:2], 2)
	if len(p.Grants) != 2 || p.Next != nil {
		t.Errorf("the whole rest: %d grants, next %v; want 2 and no next page", len(p.Grants), p.Next)
	}
	p = sqlstore.GrantPage(nil, 2)
	if p.Grants == nil || len(p.Grants) != 0 || p.Next != nil {
		t.Errorf("no rows: %#v; want an empty, non-nil list and no next page", p)
	}
}

func TestFillGrant(t *testing.T) {
	from := time.Date(2026, 3, 1, 12, 0, 0, 0, time.FixedZone("CET", 3600))
	user, key := uuid.New(), uuid.New()
	var g gatehouse.Grant
	sqlstore.FillGrant(&g, from, from.Add(time.Hour), from, nil,
		sqlstore.Creator{User: &user, Email: "a@example.com", Name: "A", Key: &key, KeyName: "ci", KeyPrefix: "gh_ab"})
	if g.AccessPointIDs == nil || time.Time(g.From).Location() != time.UTC || !time.Time(g.Until).Equal(from.Add(time.Hour)) || g.RevokedAt != nil {
		t.Errorf("FillGrant: %+v; want an empty list of access points, times in UTC, not revoked", g)
	}
	if g.CreatedBy == nil || g.CreatedBy.ID != user || g.CreatedBy.Email != "a@example.com" ||
		g.CreatedByKey == nil || g.CreatedByKey.ID != key || g.CreatedByKey.Prefix != "gh_ab" {
		t.Errorf("FillGrant creators: %+v, %+v", g.CreatedBy, g.CreatedByKey)
	}
	var none gatehouse.Grant
	revoked := from.Add(time.Minute)
	sqlstore.FillGrant(&none, from, from.Add(time.Hour), from, &revoked, sqlstore.Creator{})
	if none.CreatedBy != nil || none.CreatedByKey != nil || none.RevokedAt == nil || !time.Time(*none.RevokedAt).Equal(revoked) {
		t.Errorf("FillGrant with no creator, revoked: %+v", none)
	}
}

func TestActiveGrantEndsAtItsRevocation(t *testing.T) {
	from := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	until, early, late := from.Add(time.Hour), from.Add(time.Minute), from.Add(2*time.Hour)
	for _, c := range []struct {
		name    string
		revoked *time.Time
		want    time.Time
	}{{"not revoked", nil, until}, {"revoked before its end", &early, early}, {"revoked after its end", &late, until}} {
		a := sqlstore.ActiveGrant("156", from, until, c.revoked)
		if a.PlatformUserID != "156" || !time.Time(a.From).Equal(from) || !time.Time(a.Until).Equal(c.want) {
			t.Errorf("%s: %+v; want until %v", c.name, a, c.want)
		}
	}
}

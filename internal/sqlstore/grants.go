package sqlstore

import (
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// GrantTarget is the audit target of a grant, named by its player.
func GrantTarget(id uuid.UUID, player string) gatehouse.AuditTarget {
	return gatehouse.AuditTarget{Type: gatehouse.TargetGrant, ID: id, Name: player}
}

// Creator is who created a row as its columns hold it: the user's id
// (nil for none) and the key's id (nil for none), with the names joined
// from their tables.
type Creator struct {
	User               *uuid.UUID
	Email, Name        string
	Key                *uuid.UUID
	KeyName, KeyPrefix string
}

// FillGrant completes a grant read from its columns: its times (in
// UTC), its creator and an empty list of access points for none.
func FillGrant(g *gatehouse.Grant, from, until, created time.Time, revoked *time.Time, by Creator) {
	if g.AccessPointIDs == nil {
		g.AccessPointIDs = []uuid.UUID{}
	}
	g.From, g.Until, g.CreatedAt = gatehouse.Time(from.UTC()), gatehouse.Time(until.UTC()), gatehouse.Time(created.UTC())
	g.RevokedAt = nil
	if revoked != nil {
		at := revoked.UTC()
		g.RevokedAt = gatehouse.TimePtr(&at)
	}
	if by.User != nil {
		g.CreatedBy = &gatehouse.Requester{ID: *by.User, Email: by.Email, Name: by.Name}
	}
	if by.Key != nil {
		g.CreatedByKey = &gatehouse.KeyRef{ID: *by.Key, Name: by.KeyName, Prefix: by.KeyPrefix}
	}
}

// ActiveGrant is the part of a player's grant that runs from from: up to
// until, or to its revocation when that came first.
func ActiveGrant(player string, from, until time.Time, revoked *time.Time) gatehouse.ActiveGrant {
	if revoked != nil && revoked.Before(until) {
		until = *revoked
	}
	return gatehouse.ActiveGrant{PlatformUserID: player, From: gatehouse.Time(from.UTC()), Until: gatehouse.Time(until.UTC())}
}

// GrantPage is the page of grants, read one beyond limit newest first:
// at most limit grants (never nil), and the key of the next page when
// another follows.
func GrantPage(grants []gatehouse.Grant, limit int) gatehouse.GrantPage {
	grants, next := KeysetPage(grants, limit, gatehouse.Grant.Key)
	return gatehouse.GrantPage{Grants: grants, Next: next}
}

package sqlstore

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// AuditChanges writes an entry's changes as the JSON both stores keep.
func AuditChanges(e gatehouse.AuditEntry) ([]byte, error) {
	return json.Marshal(e.Changes)
}

// ReadAuditChanges reads what AuditChanges wrote.
func ReadAuditChanges(b []byte) (map[string]gatehouse.AuditChange, error) {
	changes := map[string]gatehouse.AuditChange{}
	if err := json.Unmarshal(b, &changes); err != nil {
		return nil, fmt.Errorf("audit changes: %w", err)
	}
	return changes, nil
}

// OptID is id as a nullable column: NULL for none.
func OptID(id *uuid.UUID) any {
	if id == nil {
		return nil
	}
	return id[:]
}

// AuditPage is the page of entries, read one beyond limit in keyset
// order: at most limit entries (never nil), and the key of the next page
// when another follows.
func AuditPage(entries []gatehouse.AuditEntry, limit int) gatehouse.AuditPage {
	if entries == nil {
		entries = []gatehouse.AuditEntry{}
	}
	page := gatehouse.AuditPage{}
	var last *gatehouse.AuditEntry
	if page.Entries, last = TrimPage(entries, limit); last != nil {
		page.Next = &gatehouse.AuditKey{At: last.At, ID: last.ID}
	}
	return page
}

// UserEntry is e about the user u, in u's organization.
func UserEntry(e gatehouse.AuditEntry, u gatehouse.User) gatehouse.AuditEntry {
	return e.Of(u.OrgID, gatehouse.AuditTarget{Type: gatehouse.TargetUser, ID: u.ID, Name: u.Email})
}

// SignInRequiredEntry is the entry of an organization that began
// (required) or stopped requiring what of its members' sign-ins.
func SignInRequiredEntry(e gatehouse.AuditEntry, orgID uuid.UUID, name string, what gatehouse.SignInRequirement, was, required bool) gatehouse.AuditEntry {
	field := map[gatehouse.SignInRequirement]string{gatehouse.RequireSecondFactor: "secondFactorRequired", gatehouse.RequireProvider: "providerRequired"}[what]
	return e.Of(orgID, gatehouse.AuditTarget{Type: gatehouse.TargetOrganization, ID: orgID, Name: name}).
		Change(field, strconv.FormatBool(was), strconv.FormatBool(required))
}

// SignInColumn is the column of organizations that keeps what, or an
// error for a requirement no store knows.
func SignInColumn(what gatehouse.SignInRequirement) (string, error) {
	switch what {
	case gatehouse.RequireSecondFactor:
		return "second_factor_required", nil
	case gatehouse.RequireProvider:
		return "provider_required", nil
	}
	return "", fmt.Errorf("sign-in requirement %q: %w", what, gatehouse.ErrInvalid)
}

// InvitedEntry is the entry of an invitation link made for the user u
// (a new user's first, or one that replaces the link u had): when it
// expires, never the link.
func InvitedEntry(e gatehouse.AuditEntry, u gatehouse.User, inv gatehouse.Invitation) gatehouse.AuditEntry {
	return UserEntry(e, u).Change("invitedUntil", "", gatehouse.FormatTime(inv.ExpiresAt))
}

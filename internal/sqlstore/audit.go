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

// SecondFactorRequiredEntry is the entry of an organization that began
// (required) or stopped requiring a second factor of its members.
func SecondFactorRequiredEntry(e gatehouse.AuditEntry, orgID uuid.UUID, name string, was, required bool) gatehouse.AuditEntry {
	return e.Of(orgID, gatehouse.AuditTarget{Type: gatehouse.TargetOrganization, ID: orgID, Name: name}).
		Change("secondFactorRequired", strconv.FormatBool(was), strconv.FormatBool(required))
}

// InvitedEntry is the entry of an invitation link made for the user u
// (a new user's first, or one that replaces the link u had): when it
// expires, never the link.
func InvitedEntry(e gatehouse.AuditEntry, u gatehouse.User, inv gatehouse.Invitation) gatehouse.AuditEntry {
	return UserEntry(e, u).Change("invitedUntil", "", gatehouse.FormatTime(inv.ExpiresAt))
}

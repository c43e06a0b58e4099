package sqlstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// PolicyChange is what storing a policy over the current one does.
type PolicyChange struct {
	// Policy is the policy the access point has afterwards.
	Policy gatehouse.Policy
	// Store is false when the rules are those of the current policy:
	// nothing is written and nothing recorded.
	Store bool
	// Entry is the audit entry of the change, completed with the access
	// point and the versions.
	Entry gatehouse.AuditEntry
}

// NextPolicy is the rule of Store.PutPolicy both stores follow: given the
// access point's current policy (nil for none) and the caller's
// ifVersion, p becomes the next version, stored at at (as the store
// keeps times), or nothing changes. ErrConflict for a stale ifVersion.
func NextPolicy(e gatehouse.AuditEntry, orgID, accessPointID uuid.UUID, name string, cur *gatehouse.Policy, p gatehouse.Policy, ifVersion *int64, at time.Time) (PolicyChange, error) {
	var old int64
	if cur != nil {
		old = cur.Version
	}
	if ifVersion != nil && *ifVersion != old {
		return PolicyChange{}, fmt.Errorf("policy of access point %s: version is %d, not %d: %w", accessPointID, old, *ifVersion, gatehouse.ErrConflict)
	}
	if cur != nil && bytes.Equal(gatehouse.PolicyBody(*cur), gatehouse.PolicyBody(p)) {
		return PolicyChange{Policy: *cur}, nil
	}
	p.Version = old + 1
	updated := gatehouse.Time(at)
	p.UpdatedAt = &updated
	entry := e.Of(orgID, gatehouse.AuditTarget{Type: gatehouse.TargetAccessPoint, ID: accessPointID, Name: name}).
		Change("version", versionText(old), versionText(p.Version))
	return PolicyChange{Policy: p, Store: true, Entry: entry}, nil
}

// versionText is a policy version as the audit log shows it: "" for none.
func versionText(v int64) string {
	if v == 0 {
		return ""
	}
	return strconv.FormatInt(v, 10)
}

// DecodePolicy returns a stored policy version with its number and time,
// or nil when the access point's join found none (ok false). A body that
// cannot be decoded is an error wrapping gatehouse.ErrUnreadable, returned
// with a policy that holds only the version and time: enough for a set to
// name it and for PutPolicy to replace it, never to decide by.
func DecodePolicy(ok bool, version int64, body []byte, createdAt time.Time) (*gatehouse.Policy, error) {
	if !ok {
		return nil, nil
	}
	at := gatehouse.Time(createdAt.UTC())
	var p gatehouse.Policy
	if err := json.Unmarshal(body, &p); err != nil {
		return &gatehouse.Policy{Version: version, UpdatedAt: &at},
			fmt.Errorf("policy version %d: %v: %w", version, err, gatehouse.ErrUnreadable)
	}
	p.Version = version
	p.UpdatedAt = &at
	return &p, nil
}

// SkipUnreadable keeps in ap a policy that could not be decoded (err
// wrapping gatehouse.ErrUnreadable) as Unreadable, so that the set it
// belongs to is served without it; any other error is returned.
func SkipUnreadable(ap *gatehouse.AccessPointPolicy, err error) error {
	if errors.Is(err, gatehouse.ErrUnreadable) {
		ap.Unreadable = err
		return nil
	}
	return err
}

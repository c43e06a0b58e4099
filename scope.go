package gatehouse

import (
	"fmt"
	"slices"
	"strings"
)

// Scope is a permission an API key carries.
type Scope string

// The scopes a key may carry.
const (
	ScopeEventsRead    Scope = "events:read"
	ScopeEventsWrite   Scope = "events:write"
	ScopeLocationsRead Scope = "locations:read"
	// ScopeLocationsWrite archives, restores and deletes locations and
	// access points (docs/api.md, "Archive and delete").
	ScopeLocationsWrite Scope = "locations:write"
	ScopeCommandsWrite  Scope = "commands:write"
	// ScopeGameServer is what a game server does (part two of the contract);
	// it is known now so that a game server's key, "server,events:write",
	// can be made before the endpoints that need it exist.
	ScopeGameServer Scope = "server"
	// ScopeAuditRead reads the audit log.
	ScopeAuditRead Scope = "audit:read"
	// ScopePoliciesWrite reads and changes access policies.
	ScopePoliciesWrite Scope = "policies:write"
	// ScopeWebhooksWrite manages webhook endpoints and their deliveries.
	ScopeWebhooksWrite Scope = "webhooks:write"
	// ScopePrivacyWrite erases a player's data and reads and sets the
	// organization's retention.
	ScopePrivacyWrite Scope = "privacy:write"
	// ScopeKeysWrite lists the organization's keys (never a secret) and
	// changes their rate limits, but not its own nor that of another key
	// with this scope (see [APIKey.ChangeableBy]).
	ScopeKeysWrite Scope = "keys:write"
)

// Scopes lists every known scope in documentation order.
var Scopes = []Scope{ScopeEventsRead, ScopeEventsWrite, ScopeLocationsRead, ScopeLocationsWrite, ScopeCommandsWrite, ScopeGameServer, ScopeAuditRead, ScopePoliciesWrite, ScopeWebhooksWrite, ScopePrivacyWrite, ScopeKeysWrite}

// ParseScopes reads a comma-separated list of scopes. Duplicates collapse;
// an unknown or empty list is an error naming the known scopes.
func ParseScopes(s string) ([]Scope, error) {
	var out []Scope
	for part := range strings.SplitSeq(s, ",") {
		sc := Scope(strings.TrimSpace(part))
		if sc == "" {
			continue
		}
		if !slices.Contains(Scopes, sc) {
			return nil, fmt.Errorf("unknown scope %q (known: %s)", sc, JoinScopes(Scopes))
		}
		if !slices.Contains(out, sc) {
			out = append(out, sc)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("at least one scope is required (known: %s)", JoinScopes(Scopes))
	}
	return out, nil
}

// JoinScopes writes scopes comma-separated.
func JoinScopes(scopes []Scope) string {
	s := make([]string, len(scopes))
	for i, sc := range scopes {
		s[i] = string(sc)
	}
	return strings.Join(s, ",")
}

// ReachScopes are the scopes a key limited to locations may hold: each
// reads or acts on records of one location, which the key's reach
// narrows ([AuthorizeIn]). The others concern the whole organization
// (writing events and syncing game servers included: a game's servers
// hold its every door).
var ReachScopes = []Scope{ScopeEventsRead, ScopeLocationsRead, ScopeCommandsWrite, ScopePoliciesWrite}

// CheckReachScopes refuses, keyed "scopes", a scope a key limited to
// locations may not hold.
func CheckReachScopes(scopes []Scope) error {
	for _, sc := range scopes {
		if !slices.Contains(ReachScopes, sc) {
			return Invalid("scopes", "%s is not for a key limited to locations, which may hold %s", sc, JoinScopes(ReachScopes))
		}
	}
	return nil
}

package auth

import "github.com/gatehouse/gatehouse"

// CachedUnknown reports how many unknown hashes a holds.
func CachedUnknown(a *Authenticator) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.unknown)
}

// KnownValid reports whether a knows raw as a valid key.
func KnownValid(a *Authenticator, raw string) bool {
	hash, err := gatehouse.ParseKey(raw)
	return err == nil && a.knownValid(hash, a.now())
}

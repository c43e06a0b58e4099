// Package auth turns an Authorization header into an API key.
//
// A token is checked for shape and checksum before any storage access, then
// looked up by its SHA-256 hash. Found keys are cached for at most CacheTTL
// so that revocation and expiry apply on every instance within a second;
// hashes the store does not hold are remembered as unknown for UnknownTTL,
// so a repeated unknown key does not reach the store per request. A lookup
// of a key not known to be valid is paid for in advance from the caller's
// failure budget (Reserve) and refunded when the key proves good. Last-use
// times are written in batches, at most once a minute per key.
package auth

// Package auth turns an Authorization header into an API key.
//
// A token is checked for shape and checksum before any storage access, then
// looked up by its SHA-256 hash. Found keys are cached for at most CacheTTL
// so that revocation and expiry apply on every instance within a second,
// and last-use times are written in batches, at most once a minute per key.
package auth

package gatehouse

import (
	"crypto/rand"
	"encoding/base64"
	"time"
)

// ProviderFlowLifetime is how long a sign-in through the OpenID
// provider may take, from the dashboard's redirect to the provider back
// to its callback.
const ProviderFlowLifetime = 10 * time.Minute

// ProviderFlow is one sign-in through the OpenID provider (the
// authorization code flow): the state that ties the provider's answer to
// the browser that asked, the nonce that ties the ID token to it, and the
// PKCE verifier whose challenge went with the request. Next is the
// dashboard page to go on to.
//
// The browser keeps a cookie of the flow ([Sessions.NewProviderFlow]):
// a random key and Next, signed with an expiry. The state, the nonce and
// the verifier are derived from the key with the service secret, so the
// cookie does not hold them, and only this installation can make them.
type ProviderFlow struct {
	State, Nonce, Verifier string
	Next                   string
}

// ProviderIdentity is who the provider says signed in.
type ProviderIdentity struct {
	Issuer, Subject string
	// Email is as the provider gives it; EmailVerified says the provider
	// has proved the person owns it, which Gatehouse requires.
	Email         string
	EmailVerified bool
}

// NewProviderFlow begins a flow that goes on to next, good for
// [ProviderFlowLifetime]: cookie is for the browser.
func (s *Sessions) NewProviderFlow(next string, now time.Time) (cookie string, f ProviderFlow) {
	key := make([]byte, 32)
	rand.Read(key)
	return s.sign("provider-flow", now.Add(ProviderFlowLifetime), append(key, next...)), s.providerFlow(key, next)
}

// OpenProviderFlow returns the flow of a browser's cookie, unless it was
// altered or has expired.
func (s *Sessions) OpenProviderFlow(cookie string, now time.Time) (ProviderFlow, bool) {
	body, ok := s.open("provider-flow", cookie, now)
	if !ok || len(body) < 32 {
		return ProviderFlow{}, false
	}
	return s.providerFlow(body[:32], string(body[32:])), true
}

func (s *Sessions) providerFlow(key []byte, next string) ProviderFlow {
	derive := func(purpose string) string { return base64.RawURLEncoding.EncodeToString(s.mac(purpose, key)) }
	return ProviderFlow{State: derive("provider-state"), Nonce: derive("provider-nonce"), Verifier: derive("provider-verifier"), Next: next}
}

// VerifiedEmail signs that the OpenID provider verified email now, for
// [ProviderFlowLifetime]: what the page of the invitations waiting for
// it carries to accept one, or to go on without.
func (s *Sessions) VerifiedEmail(email string, now time.Time) string {
	return s.sign("provider-verified", now.Add(ProviderFlowLifetime), []byte(email))
}

// OpenVerifiedEmail returns the email of a token of VerifiedEmail,
// unless it was altered or has expired.
func (s *Sessions) OpenVerifiedEmail(token string, now time.Time) (string, bool) {
	body, ok := s.open("provider-verified", token, now)
	return string(body), ok
}

// SignInRequirement is what an organization may require of its members'
// sign-ins, each on or off.
type SignInRequirement string

const (
	// RequireSecondFactor: members without a second factor sign in to
	// enrol one, and nothing else.
	RequireSecondFactor SignInRequirement = "second_factor"
	// RequireProvider: members sign in through the OpenID provider only;
	// their passwords sign nobody in.
	RequireProvider SignInRequirement = "provider"
)

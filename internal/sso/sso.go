// Package sso signs dashboard users in through an OpenID Connect
// provider (--oidc-issuer): the authorization code flow with PKCE, state
// and nonce, through github.com/coreos/go-oidc and golang.org/x/oauth2.
// It says who the provider signed in; the service decides what that
// person may be (internal/service, SignInThroughProvider).
package sso

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/gatehouse/gatehouse"
	"golang.org/x/oauth2"
)

// Config is the provider and this installation's registration with it.
type Config struct {
	// Issuer is the provider's issuer URL, where its discovery document
	// is (Issuer + "/.well-known/openid-configuration").
	Issuer string
	// ClientID and ClientSecret are what the provider registered
	// Gatehouse as (a confidential web client).
	ClientID, ClientSecret string
	// RedirectURL is the dashboard's callback, as registered with the
	// provider: --public-url + CallbackPath.
	RedirectURL string
	// HTTPClient reaches the provider; nil: one with a 10 s timeout.
	HTTPClient *http.Client
}

// CallbackPath is where the provider sends the browser back.
const CallbackPath = "/dashboard/login/oidc/callback"

// discoveryRetry is how long a failed discovery is remembered before a
// sign-in tries again: a provider down when Gatehouse starts stops
// nothing else.
const discoveryRetry = 5 * time.Second

// Provider is the OpenID provider. Its discovery document is read at the
// first sign-in, not at start: a provider that is down then delays only
// the sign-ins through it.
type Provider struct {
	cfg Config

	mu       sync.Mutex
	provider *oidc.Provider
	failedAt time.Time
	failure  error
}

// New returns the provider of cfg; nothing is fetched yet.
func New(cfg Config) *Provider {
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	return &Provider{cfg: cfg}
}

// Name is what the sign-in page calls the provider: its issuer's host.
func (p *Provider) Name() string {
	if u, err := url.Parse(p.cfg.Issuer); err == nil && u.Host != "" {
		return u.Host
	}
	return p.cfg.Issuer
}

// discover returns the provider's endpoints and keys, read once.
func (p *Provider) discover(ctx context.Context) (*oidc.Provider, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.provider != nil {
		return p.provider, nil
	}
	if p.failure != nil && time.Since(p.failedAt) < discoveryRetry {
		return nil, p.failure
	}
	provider, err := oidc.NewProvider(oidc.ClientContext(ctx, p.cfg.HTTPClient), p.cfg.Issuer)
	if err != nil {
		p.failure, p.failedAt = fmt.Errorf("the identity provider %s: %w: %w", p.cfg.Issuer, err, gatehouse.ErrUnavailable), time.Now()
		return nil, p.failure
	}
	p.provider = provider
	return provider, nil
}

// oauth2 is the client of the provider's endpoints. The client
// authenticates with HTTP Basic (client_secret_basic, which every
// provider supports) unless the provider says it takes only the form:
// left to detect, the library would send a refused or failed code a
// second time.
func (p *Provider) oauth2(provider *oidc.Provider) *oauth2.Config {
	endpoint := provider.Endpoint()
	if endpoint.AuthStyle == oauth2.AuthStyleAutoDetect {
		endpoint.AuthStyle = oauth2.AuthStyleInHeader
	}
	return &oauth2.Config{ClientID: p.cfg.ClientID, ClientSecret: p.cfg.ClientSecret, RedirectURL: p.cfg.RedirectURL,
		Endpoint: endpoint, Scopes: []string{oidc.ScopeOpenID, "email"}}
}

// AuthURL is the provider's page that begins the flow f: its state, its
// nonce and the S256 challenge of its verifier.
func (p *Provider) AuthURL(ctx context.Context, f gatehouse.ProviderFlow) (string, error) {
	provider, err := p.discover(ctx)
	if err != nil {
		return "", err
	}
	return p.oauth2(provider).AuthCodeURL(f.State, oidc.Nonce(f.Nonce), oauth2.S256ChallengeOption(f.Verifier)), nil
}

// ErrRefused wraps what the provider, or its answer, was refused for:
// a code it would not exchange (used, expired, another client's), an ID
// token that is not its, not for this client, expired, or of another
// flow's nonce. It is [gatehouse.ErrProviderSignInFailed].
var ErrRefused = gatehouse.ErrProviderSignInFailed

// Identify exchanges the code of the flow f, with f's verifier, for the
// provider's tokens and returns who signed in. The ID token's signature,
// issuer, audience and expiry are verified, and its nonce must be f's;
// the email comes from the ID token or, when it has none, from the
// userinfo endpoint, for the same subject.
//
// Errors: [ErrRefused] for an answer that is not good; a
// [gatehouse.ErrUnavailable] when the provider does not answer.
func (p *Provider) Identify(ctx context.Context, code string, f gatehouse.ProviderFlow) (gatehouse.ProviderIdentity, error) {
	provider, err := p.discover(ctx)
	if err != nil {
		return gatehouse.ProviderIdentity{}, err
	}
	ctx = oidc.ClientContext(ctx, p.cfg.HTTPClient)
	token, err := p.oauth2(provider).Exchange(ctx, code, oauth2.VerifierOption(f.Verifier))
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && re.Response != nil && re.Response.StatusCode < 500 {
			return gatehouse.ProviderIdentity{}, fmt.Errorf("%w: the code: %s", ErrRefused, re.ErrorCode)
		}
		return gatehouse.ProviderIdentity{}, fmt.Errorf("the identity provider's token endpoint: %w: %w", err, gatehouse.ErrUnavailable)
	}
	raw, ok := token.Extra("id_token").(string)
	if !ok {
		return gatehouse.ProviderIdentity{}, fmt.Errorf("%w: no ID token", ErrRefused)
	}
	idToken, err := provider.Verifier(&oidc.Config{ClientID: p.cfg.ClientID}).Verify(ctx, raw)
	if err != nil {
		return gatehouse.ProviderIdentity{}, fmt.Errorf("%w: the ID token: %v", ErrRefused, err)
	}
	if subtle.ConstantTimeCompare([]byte(idToken.Nonce), []byte(f.Nonce)) != 1 {
		return gatehouse.ProviderIdentity{}, fmt.Errorf("%w: the ID token's nonce is another flow's", ErrRefused)
	}
	id := gatehouse.ProviderIdentity{Issuer: idToken.Issuer, Subject: idToken.Subject}
	var claims struct {
		Email         string `json:"email"`
		EmailVerified *bool  `json:"email_verified"`
	}
	if err := idToken.Claims(&claims); err != nil {
		return gatehouse.ProviderIdentity{}, fmt.Errorf("%w: the ID token's claims: %v", ErrRefused, err)
	}
	if claims.Email != "" {
		id.Email, id.EmailVerified = claims.Email, claims.EmailVerified != nil && *claims.EmailVerified
		return id, nil
	}
	info, err := provider.UserInfo(ctx, oauth2.StaticTokenSource(token))
	if err != nil {
		return gatehouse.ProviderIdentity{}, fmt.Errorf("the identity provider's userinfo: %w: %w", err, gatehouse.ErrUnavailable)
	}
	if info.Subject != idToken.Subject {
		return gatehouse.ProviderIdentity{}, fmt.Errorf("%w: the userinfo is of another subject", ErrRefused)
	}
	id.Email, id.EmailVerified = info.Email, info.EmailVerified
	return id, nil
}

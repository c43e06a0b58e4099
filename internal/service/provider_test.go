package service_test

import (
	"context"
	"errors"
	"net/url"
	"testing"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
)

// recordingProvider answers every code with its identity and counts
// the codes it was asked to exchange.
type recordingProvider struct {
	id        gatehouse.ProviderIdentity
	exchanges int
}

func (p *recordingProvider) Name() string { return "idp.test" }

func (p *recordingProvider) AuthURL(_ context.Context, f gatehouse.ProviderFlow) (string, error) {
	return "https://idp.test/authorize?" + url.Values{"state": {f.State}, "nonce": {f.Nonce}}.Encode(), nil
}

func (p *recordingProvider) Identify(context.Context, string, gatehouse.ProviderFlow) (gatehouse.ProviderIdentity, error) {
	p.exchanges++
	return p.id, nil
}

// TestProviderSignInChecksTheStateFirst: an answer whose state is not
// the flow's (a sign-in forged into another browser), or that comes
// after the flow expired, is refused before any code reaches the
// provider; the provider's other refusals (a wrong nonce, a replayed
// code) are the end-to-end tests' (internal/dashboard).
func TestProviderSignInChecksTheStateFirst(t *testing.T) {
	p := &recordingProvider{id: gatehouse.ProviderIdentity{Email: "ops@acme.test", EmailVerified: true}}
	f := newService(t, nil, func(c *service.Config) { c.Provider = p })
	ctx := context.Background()
	if _, err := f.svc.CreateUser(ctx, gatehouse.NewUser{OrgID: f.org.ID, Email: "ops@acme.test", Password: "correct horse battery"}); err != nil {
		t.Fatal(err)
	}
	authURL, cookie, err := f.svc.BeginProviderSignIn(ctx, "/dashboard/keys")
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(authURL)
	state := u.Query().Get("state")
	_, otherCookie, _ := f.svc.BeginProviderSignIn(ctx, "")
	for what, c := range map[string]struct{ cookie, state string }{
		"another flow's state":  {cookie, "not-the-state"},
		"another flow's cookie": {otherCookie, state},
		"no cookie":             {"", state},
		"a cookie altered":      {cookie + "x", state},
	} {
		if _, _, _, _, err := f.svc.FinishProviderSignIn(ctx, c.cookie, c.state, "code"); !errors.Is(err, gatehouse.ErrProviderSignInFailed) {
			t.Errorf("%s: %v, want ErrProviderSignInFailed", what, err)
		}
	}
	if p.exchanges != 0 {
		t.Fatalf("%d codes reached the provider", p.exchanges)
	}
	f.now = f.now.Add(gatehouse.ProviderFlowLifetime)
	if _, _, _, _, err := f.svc.FinishProviderSignIn(ctx, cookie, state, "code"); !errors.Is(err, gatehouse.ErrProviderSignInFailed) || p.exchanges != 0 {
		t.Errorf("an expired flow: %v (%d exchanges)", err, p.exchanges)
	}
	authURL, cookie, _ = f.svc.BeginProviderSignIn(ctx, "/dashboard/keys")
	u, _ = url.Parse(authURL)
	_, _, who, next, err := f.svc.FinishProviderSignIn(ctx, cookie, u.Query().Get("state"), "code")
	if err != nil || who.Email != "ops@acme.test" || next != "/dashboard/keys" || p.exchanges != 1 {
		t.Fatalf("the flow's own answer: %+v %q %v", who, next, err)
	}
}

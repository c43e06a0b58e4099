package service_test

import (
	"context"
	"errors"
	"net/url"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
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

// TestAcceptingThroughTheProvider: a sign-in through the provider of an
// email that organizations invited joins nothing by itself: it lists the
// invitations, and the person joins the one they pick, or goes on to
// their own organization; the page's token is the verified email's, and
// reaches no other email's invitation.
func TestAcceptingThroughTheProvider(t *testing.T) {
	p := &recordingProvider{id: gatehouse.ProviderIdentity{Email: "Ops@Acme.test", EmailVerified: true}}
	f := newService(t, nil, func(c *service.Config) { c.Provider = p })
	ctx := context.Background()
	member, err := f.svc.CreateUser(ctx, gatehouse.NewUser{OrgID: f.org.ID, Email: "ops@acme.test", Password: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}
	invited, _, err := f.svc.InviteUser(ctx, gatehouse.NewUser{OrgID: f.other.ID, Email: "ops@acme.test"})
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := f.svc.InviteUser(ctx, gatehouse.NewUser{OrgID: f.other.ID, Email: "someone@else.test"})
	if err != nil {
		t.Fatal(err)
	}
	finish := func() error {
		authURL, cookie, err := f.svc.BeginProviderSignIn(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		u, _ := url.Parse(authURL)
		_, _, _, _, err = f.svc.FinishProviderSignIn(ctx, cookie, u.Query().Get("state"), "code")
		return err
	}
	var waiting *gatehouse.InvitationsError
	if err := finish(); !errors.As(err, &waiting) || len(waiting.Invitations) != 1 || waiting.Invitations[0].User.ID != invited.ID || waiting.Members != 1 {
		t.Fatalf("a sign-in of an invited email: %v, want the invitation listed", err)
	}
	if users, _ := f.svc.ListUsers(ctx, f.other.ID); users[0].Proven || users[1].Proven {
		t.Fatalf("a sign-in joined by itself: %+v", users)
	}
	if _, _, _, err := f.svc.AcceptThroughProvider(ctx, waiting.Token, other.ID); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("accepting another email's invitation: %v, want ErrNotFound", err)
	}
	if _, _, _, err := f.svc.AcceptThroughProvider(ctx, waiting.Token+"x", invited.ID); !errors.Is(err, gatehouse.ErrProviderSignInFailed) {
		t.Errorf("an altered token: %v", err)
	}
	if _, _, who, err := f.svc.ContinueThroughProvider(ctx, waiting.Token); err != nil || who.ID != member.ID {
		t.Errorf("going on without joining: %+v %v, want the member", who, err)
	}
	_, _, who, err := f.svc.AcceptThroughProvider(ctx, waiting.Token, invited.ID)
	if err != nil || who.ID != invited.ID || !who.Proven || who.PasswordHash != "" {
		t.Fatalf("joining the one picked: %+v %v, want a member with no password", who, err)
	}
	if _, _, _, err := f.svc.AcceptThroughProvider(ctx, waiting.Token, invited.ID); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("joining twice: %v", err)
	}
	if err := finish(); !errors.As(err, new(*gatehouse.ChoiceError)) {
		t.Errorf("after joining, a sign-in through the provider: %v, want a choice of both", err)
	}
	f.now = f.now.Add(gatehouse.ProviderFlowLifetime)
	if _, _, _, err := f.svc.ContinueThroughProvider(ctx, waiting.Token); !errors.Is(err, gatehouse.ErrProviderSignInFailed) {
		t.Errorf("an expired token: %v", err)
	}
}

// TestFailuresReachTheOrganizationsOfTheEmailsOwner: a failed sign-in is
// recorded where the email was proven first (here, a look-alike Rival's
// admin claimed through a link before the person joined anywhere), and
// where the provider proved its owner (Acme, joined through the
// provider), never in another link-proven membership.
func TestFailuresReachTheOrganizationsOfTheEmailsOwner(t *testing.T) {
	p := &recordingProvider{id: gatehouse.ProviderIdentity{Email: "v@studio.test", EmailVerified: true}}
	f := newService(t, nil, func(c *service.Config) { c.Provider = p })
	ctx := context.Background()
	third, err := f.svc.CreateOrganization(ctx, "Third")
	if err != nil {
		t.Fatal(err)
	}
	links := map[string]string{}
	for name, org := range map[string]gatehouse.Organization{"acme": f.org, "rival": f.other, "third": third} {
		_, link, err := f.svc.InviteUser(ctx, gatehouse.NewUser{OrgID: org.ID, Email: "v@studio.test"})
		if err != nil {
			t.Fatal(err)
		}
		links[name] = link
	}
	if _, _, _, err := f.svc.Join(ctx, links["rival"], "claimed by rival's admin"); err != nil { // first: Rival's admin, through the link they saw
		t.Fatal(err)
	}
	f.now = f.now.Add(time.Minute)
	if _, _, _, err := f.svc.Join(ctx, links["third"], "third's look-alike"); err != nil {
		t.Fatal(err)
	}
	authURL, cookie, _ := f.svc.BeginProviderSignIn(ctx, "")
	u, _ := url.Parse(authURL)
	var waiting *gatehouse.InvitationsError
	if _, _, _, _, err := f.svc.FinishProviderSignIn(ctx, cookie, u.Query().Get("state"), "code"); !errors.As(err, &waiting) {
		t.Fatalf("the owner's sign-in: %v", err)
	}
	acme, _, _, err := f.svc.AcceptThroughProvider(ctx, waiting.Token, waiting.Invitations[0].User.ID)
	if err != nil || len(waiting.Invitations) != 1 {
		t.Fatalf("the owner joins Acme through the provider: %+v %v", acme, err)
	}
	if _, _, _, err := f.svc.SignIn(ctx, "v@studio.test", "a wrong password!!", "192.0.2.0"); !errors.Is(err, gatehouse.ErrBadCredentials) {
		t.Fatal(err)
	}
	for org, want := range map[uuid.UUID]int{f.org.ID: 1, f.other.ID: 1, third.ID: 0} {
		if n := len(filter(f.auditLog(t, org), gatehouse.AuditSignInFailed)); n != want {
			t.Errorf("organization %s has %d failed sign-ins, want %d", org, n, want)
		}
	}
}

package cli

import (
	"net/url"

	"github.com/gatehouse/gatehouse/internal/sso"
)

// oidcSettings are the flags of the OpenID provider dashboard users may
// sign in through.
type oidcSettings struct{ issuer, clientID, clientSecret *string }

func addOIDCFlags(f *flags) oidcSettings {
	return oidcSettings{
		issuer: f.setting("oidc-issuer", "GATEHOUSE_OIDC_ISSUER", "",
			"issuer URL of the OpenID Connect provider dashboard users may sign in through (needs --public-url, and the provider's client registered with --public-url"+sso.CallbackPath+" as its redirect URI); empty: passwords only"),
		clientID:     f.setting("oidc-client-id", "GATEHOUSE_OIDC_CLIENT_ID", "", "the client id the provider registered Gatehouse as"),
		clientSecret: f.secretSetting("oidc-client-secret", "GATEHOUSE_OIDC_CLIENT_SECRET", "the client secret the provider gave Gatehouse"),
	}
}

// oidcConfig checks the provider's flags before anything starts: none,
// or an http(s) issuer (https but on loopback), a client id and
// --public-url, which the redirect URI starts with.
func (s serveSettings) oidcConfig() (sso.Config, error) {
	o := s.oidc
	if *o.issuer == "" {
		if *o.clientID != "" || *o.clientSecret != "" {
			return sso.Config{}, usagef("--oidc-client-id and --oidc-client-secret need --oidc-issuer")
		}
		return sso.Config{}, nil
	}
	u, err := url.Parse(*o.issuer)
	loopback := err == nil && (u.Hostname() == "localhost" || u.Hostname() == "127.0.0.1" || u.Hostname() == "::1")
	if err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || (u.Scheme != "https" && !(u.Scheme == "http" && loopback)) {
		return sso.Config{}, usagef("--oidc-issuer must be the provider's https URL, such as https://accounts.google.com, got %q", *o.issuer)
	}
	switch public, _ := s.publicBase(); {
	case *o.clientID == "":
		return sso.Config{}, usagef("--oidc-issuer needs --oidc-client-id")
	case public == "":
		return sso.Config{}, usagef("--oidc-issuer needs --public-url: the provider sends people back to --public-url%s", sso.CallbackPath)
	}
	return sso.Config{Issuer: *o.issuer, ClientID: *o.clientID, ClientSecret: *o.clientSecret}, nil
}

package dashboard

import "net/http"

// The dashboard's floor plan: every page and form under [Prefix], who may
// reach it, and the handler that serves it, in the order of the nav. [New]
// registers each route on one [http.ServeMux] behind Go's cross-origin
// protection and [securityHeaders]; the order here is for readers, since
// the mux picks the most specific pattern whatever the order.
//
// The roles of the signed-in user are not checked here: the service
// refuses what a role does not allow, and the pages hide it.

// access is who may reach a route.
type access int

const (
	// anyone: no session needed (sign-in, assets, the redirects).
	anyone access = iota
	// member: a signed-in user ([dashboard.signedIn]; a POST carries the
	// session's CSRF token), the request bounded by QueryTimeout
	// ([dashboard.page]).
	member
	// memberStream: a signed-in user without the bound, for the exports,
	// which stream for longer and give each read its own deadline.
	memberStream
)

// route is one line of the floor plan.
type route struct {
	method  string // "" for every method
	path    string // under Prefix
	access  access
	handler http.HandlerFunc
}

// pattern is the route's pattern for [http.ServeMux].
func (rt route) pattern() string {
	if rt.method == "" {
		return Prefix + rt.path
	}
	return rt.method + " " + Prefix + rt.path
}

// routes is the floor plan.
func (d *dashboard) routes() []route {
	return []route{
		{"GET", "/assets/", anyone, http.StripPrefix(Prefix, http.FileServerFS(assetFS)).ServeHTTP},
		{"GET", "/{$}", anyone, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, Prefix+"/events", http.StatusSeeOther)
		}},

		// Sign-in, sign-out and the time zone times are shown in.
		{"GET", "/login", anyone, d.loginForm},
		{"POST", "/login", anyone, d.login},
		{"POST", "/login/choose", anyone, d.chooseOrganization},
		{"POST", "/login/code", anyone, d.signInWithCode},
		{"GET", "/login/oidc", anyone, d.beginProviderSignIn},
		{"GET", "/login/oidc/callback", anyone, d.providerCallback},
		{"POST", "/login/oidc/accept", anyone, d.acceptThroughProvider},
		{"POST", "/login/oidc/continue", anyone, d.continueThroughProvider},
		{"GET", "/join/{token}", anyone, d.joinForm},
		{"POST", "/join/{token}", anyone, d.join},
		{"POST", "/logout", member, d.logout},
		{"POST", "/zone", member, d.setZone},

		// The user's own account: their second factor.
		{"GET", "/account", member, d.account},
		{"GET", "/account/second-factor", member, d.enrolForm},
		{"POST", "/account/second-factor", member, d.enrol},
		{"POST", "/account/second-factor/remove", member, d.removeFactor},
		{"POST", "/account/sessions/end", member, d.endSession},
		{"POST", "/account/password", member, d.changePassword},

		// The Event Log, its chart and exports.
		{"GET", "/events", member, d.eventLog},
		{"GET", "/events/{id}", member, d.eventDetail},
		{"GET", "/events/chart.svg", member, d.eventChart},
		{"GET", "/events/export.csv", memberStream, d.exportEvents("csv")},
		{"GET", "/events/export.ndjson", memberStream, d.exportEvents("ndjson")},

		// Locations, their access points and the access points' policies.
		{"GET", "/locations", member, d.locationsPage},
		{"GET", "/locations/{id}/live", member, d.locationLive},
		{"POST", "/locations", member, d.createLocation},
		{"POST", "/locations/{id}/rename", member, d.renameLocation},
		{"POST", "/locations/{id}/access-points", member, d.createAccessPoint},
		{"POST", "/locations/{id}/universe", member, d.setLocationUniverse},
		{"POST", "/access-points/{id}/rename", member, d.renameAccessPoint},
		{"POST", "/access-points/{id}/move", member, d.moveAccessPoint},
		{"GET", "/locations/{id}/archive", member, d.confirmArchive(d.locationTarget)},
		{"POST", "/locations/{id}/archive", member, d.archiveLocation},
		{"POST", "/locations/{id}/restore", member, d.restoreLocation},
		{"GET", "/locations/{id}/delete", member, d.confirmDelete(d.locationTarget)},
		{"POST", "/locations/{id}/delete", member, d.deleteLocation},
		{"GET", "/access-points/{id}/archive", member, d.confirmArchive(d.accessPointTarget)},
		{"POST", "/access-points/{id}/archive", member, d.archiveAccessPoint},
		{"POST", "/access-points/{id}/restore", member, d.restoreAccessPoint},
		{"GET", "/access-points/{id}/delete", member, d.confirmDelete(d.accessPointTarget)},
		{"POST", "/access-points/{id}/delete", member, d.deleteAccessPoint},
		{"GET", "/access-points/{id}/policy", member, d.policyPage},
		{"POST", "/access-points/{id}/policy", member, d.savePolicy},
		{"GET", "/access-points/{id}/policy/test", member, d.testDecision},

		// Remote unlocks and their commands.
		{"GET", "/commands", member, d.commandsList},
		{"GET", "/commands/unlock", member, d.unlockFormPage},
		{"POST", "/commands/unlock", member, d.unlock},
		{"GET", "/commands/{id}", member, d.commandDetail},
		{"GET", "/commands/{id}/cancel", member, d.confirmCancel},
		{"POST", "/commands/{id}/cancel", member, d.cancelCommand},

		// API keys.
		{"GET", "/keys", member, d.keysPage},
		{"POST", "/keys", member, d.createKey},
		{"GET", "/keys/{id}/rate", member, d.keyRateForm},
		{"POST", "/keys/{id}/rate", member, d.setKeyRate},
		{"GET", "/keys/{id}/revoke", member, d.confirmRevoke},
		{"POST", "/keys/{id}/revoke", member, d.revokeKey},

		// The platform's messaging, which commands are pushed to.
		{"GET", "/messaging", member, d.messagingPage},
		{"POST", "/messaging", member, d.setMessaging},
		{"POST", "/messaging/remove", member, d.removeMessaging},

		// Webhook endpoints and their deliveries.
		{"GET", "/webhooks", member, d.webhooksPage},
		{"POST", "/webhooks", member, d.createWebhook},
		{"GET", "/webhooks/{id}", member, d.webhookDetail},
		{"POST", "/webhooks/{id}/enabled", member, d.setWebhookEnabled},
		{"POST", "/webhooks/{id}/test", member, d.testWebhook},
		{"POST", "/webhooks/{id}/rotate-secret", member, d.rotateWebhookSecret},
		{"POST", "/webhooks/{id}/deliveries/{delivery}/redeliver", member, d.redeliverWebhook},
		{"POST", "/webhooks/{id}/replay", member, d.replayWebhook},
		{"GET", "/webhooks/{id}/delete", member, d.confirmDeleteWebhook},
		{"POST", "/webhooks/{id}/delete", member, d.deleteWebhook},

		// Alert rules, what they fired and each alert's deliveries.
		{"GET", "/alerts", member, d.alertsPage},
		{"POST", "/alerts/rules", member, d.createAlertRule},
		{"POST", "/alerts/rules/{id}/test", member, d.testAlertRule},
		{"POST", "/alerts/rules/{id}/delete", member, d.deleteAlertRule},
		{"GET", "/alerts/{id}", member, d.alertDetail},

		// Privacy: retention, a player's erasure, the erasure webhook.
		{"GET", "/privacy", member, d.privacyPage},
		{"POST", "/privacy/retention", member, d.setRetention},
		{"POST", "/privacy/erase", member, d.erasePlayer},
		{"POST", "/privacy/erasure-webhook", member, d.setUpErasureWebhook},

		// Users, the audit log, and a user's invitations.
		{"GET", "/users", member, d.usersPage},
		{"POST", "/users", member, d.createUser},
		{"POST", "/users/invitation", member, d.renewInvitation},
		{"POST", "/users/role", member, d.setUserRole},
		{"GET", "/users/remove", member, d.confirmRemoveUser},
		{"POST", "/users/remove", member, d.removeUser},
		{"POST", "/users/second-factor/reset", member, d.resetFactor},
		{"POST", "/users/second-factor/required", member, d.requireFactor},
		{"POST", "/users/provider/required", member, d.requireProvider},
		{"POST", "/users/sessions/end", member, d.endUserSessions},
		{"GET", "/audit", member, d.auditLog},

		// Insights: counts of the organization's events.
		{"GET", "/insights", member, d.insights},
		// Timed grants.
		{"GET", "/grants", member, d.grantsList},
		{"POST", "/grants", member, d.createGrant},
		{"GET", "/grants/{id}/revoke", member, d.confirmRevokeGrant},
		{"POST", "/grants/{id}/revoke", member, d.revokeGrant},
		// Lockdowns: the incident button, its confirmation, its release.
		{"GET", "/lockdowns", member, d.lockdowns},
		{"GET", "/lockdowns/new", member, d.confirmLockdown},
		{"POST", "/lockdowns", member, d.startLockdown},
		{"GET", "/lockdowns/{id}/release", member, d.confirmRelease},
		{"POST", "/lockdowns/{id}/release", member, d.releaseLockdown},

		// Anything else.
		{"", "/", anyone, func(w http.ResponseWriter, r *http.Request) {
			d.errorPage(w, r, http.StatusNotFound, "There is no such page.")
		}},
	}
}

// guard puts h behind what a route's access asks.
func (d *dashboard) guard(a access, h http.HandlerFunc) http.Handler {
	switch a {
	case member:
		return d.page(h)
	case memberStream:
		return d.signedIn(h)
	}
	return h
}

// templatePages are the pages the handlers render, each one
// templates/NAME.html in templates/layout.html with the shared blocks of
// templates/filters.html and templates/pager.html.
var templatePages = []string{"login", "choose", "second-step", "join", "account", "enrol", "recovery-codes", "events", "event", "error", "keys", "key-rate", "revoke", "locations", "location-live", "users", "remove-user", "audit", "provider-invitations",
	"messaging", "unlock", "unlock-confirm", "commands", "command", "cancel-command", "policy",
	"webhooks", "webhook", "delete-webhook", "replay-webhook", "privacy", "erase-player", "alerts", "alert", "insights", "grants", "revoke-grant", "lockdowns", "lockdown-start", "lockdown-release",
	"retire"}

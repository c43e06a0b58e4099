package server

import (
	"net/http"
	"time"

	"github.com/gatehouse/gatehouse"
)

// addRoutes registers every route of the service: the whole API surface.
func (s *server) addRoutes(mux *http.ServeMux) {
	mux.Handle("GET /healthz", s.healthz())
	mux.Handle("GET /readyz", s.readyz())
	if !s.SeparateMetrics {
		mux.Handle("GET /metrics", s.Metrics.Handler())
	}
	mux.Handle("GET /api/consumer/v1/openapi.json", serveOpenAPI())
	mux.Handle("GET /docs", serveReferencePage())
	mux.Handle("GET /docs/assets/redoc.standalone.js", serveReferenceScript())

	mux.Handle("GET /api/consumer/v1/events", s.requireScope(gatehouse.ScopeEventsRead, s.listEvents()))
	mux.Handle("POST /api/consumer/v1/events", s.requireScope(gatehouse.ScopeEventsWrite, s.ingestEvents()))
	mux.Handle("GET /api/consumer/v1/events/feed", s.requireScope(gatehouse.ScopeEventsRead, s.readFeed()))
	mux.Handle("GET /api/consumer/v1/locations", s.requireScope(gatehouse.ScopeLocationsRead, s.listLocations()))
	mux.Handle("GET /api/consumer/v1/locations/{id}/live", s.requireScope(gatehouse.ScopeCommandsWrite, s.locationLive()))
	mux.Handle("POST /api/consumer/v1/locations/{id}/archive", s.requireScope(gatehouse.ScopeLocationsWrite, s.archiveLocation(true)))
	mux.Handle("POST /api/consumer/v1/locations/{id}/restore", s.requireScope(gatehouse.ScopeLocationsWrite, s.archiveLocation(false)))
	mux.Handle("DELETE /api/consumer/v1/locations/{id}", s.requireScope(gatehouse.ScopeLocationsWrite, s.deleteLocation()))
	mux.Handle("POST /api/consumer/v1/access-points/{id}/archive", s.requireScope(gatehouse.ScopeLocationsWrite, s.archiveAccessPoint(true)))
	mux.Handle("POST /api/consumer/v1/access-points/{id}/restore", s.requireScope(gatehouse.ScopeLocationsWrite, s.archiveAccessPoint(false)))
	mux.Handle("DELETE /api/consumer/v1/access-points/{id}", s.requireScope(gatehouse.ScopeLocationsWrite, s.deleteAccessPoint()))
	mux.Handle("GET /api/consumer/v1/audit-log", s.requireScope(gatehouse.ScopeAuditRead, s.listAuditLog()))
	mux.Handle("POST /api/consumer/v1/commands", s.requireScope(gatehouse.ScopeCommandsWrite, s.issueCommand()))
	mux.Handle("GET /api/consumer/v1/commands", s.requireScope(gatehouse.ScopeCommandsWrite, s.listCommands()))
	mux.Handle("GET /api/consumer/v1/commands/{id}", s.requireScope(gatehouse.ScopeCommandsWrite, s.showCommand()))
	mux.Handle("POST /api/consumer/v1/commands/{id}/cancel", s.requireScope(gatehouse.ScopeCommandsWrite, s.cancelCommand()))
	mux.Handle("POST /api/consumer/v1/servers/{serverJobId}/sync",
		s.requireLongPoll(gatehouse.ScopeGameServer, gatehouse.MaxSyncWait*time.Second, s.syncServer()))
	mux.Handle("POST /api/consumer/v1/decisions", s.requireScope(gatehouse.ScopeGameServer, s.decide()))
	mux.Handle("GET /api/consumer/v1/policies", s.requireScope(gatehouse.ScopeGameServer, s.showPolicySet()))
	mux.Handle("GET /api/consumer/v1/access-points/{id}/policy", s.requireScope(gatehouse.ScopePoliciesWrite, s.showPolicy()))
	mux.Handle("PUT /api/consumer/v1/access-points/{id}/policy", s.requireScope(gatehouse.ScopePoliciesWrite, s.setPolicy()))
	mux.Handle("GET /api/consumer/v1/messaging", s.requireScope(gatehouse.ScopeCommandsWrite, s.listMessaging()))
	mux.Handle("PUT /api/consumer/v1/messaging/{universeId}", s.requireScope(gatehouse.ScopeCommandsWrite, s.setMessaging()))
	mux.Handle("DELETE /api/consumer/v1/messaging/{universeId}", s.requireScope(gatehouse.ScopeCommandsWrite, s.removeMessaging()))
	mux.Handle("POST /api/consumer/v1/webhooks", s.requireScope(gatehouse.ScopeWebhooksWrite, s.createWebhook()))
	mux.Handle("GET /api/consumer/v1/webhooks", s.requireScope(gatehouse.ScopeWebhooksWrite, s.listWebhooks()))
	mux.Handle("GET /api/consumer/v1/webhooks/{id}", s.requireScope(gatehouse.ScopeWebhooksWrite, s.showWebhook()))
	mux.Handle("PATCH /api/consumer/v1/webhooks/{id}", s.requireScope(gatehouse.ScopeWebhooksWrite, s.updateWebhook()))
	mux.Handle("DELETE /api/consumer/v1/webhooks/{id}", s.requireScope(gatehouse.ScopeWebhooksWrite, s.deleteWebhook()))
	mux.Handle("GET /api/consumer/v1/webhooks/{id}/deliveries", s.requireScope(gatehouse.ScopeWebhooksWrite, s.listDeliveries()))
	mux.Handle("POST /api/consumer/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver", s.requireScope(gatehouse.ScopeWebhooksWrite, s.redeliver()))
	mux.Handle("POST /api/consumer/v1/webhooks/{id}/replay", s.requireScope(gatehouse.ScopeWebhooksWrite, s.replayWebhook()))
	mux.Handle("POST /api/consumer/v1/webhooks/{id}/test", s.requireScope(gatehouse.ScopeWebhooksWrite, s.testWebhook()))
	mux.Handle("POST /api/consumer/v1/webhooks/{id}/rotate-secret", s.requireScope(gatehouse.ScopeWebhooksWrite, s.rotateWebhookSecret()))
	mux.Handle("DELETE /api/consumer/v1/platform-users/{platformUserId}", s.requireScope(gatehouse.ScopePrivacyWrite, s.erasePlatformUser()))
	mux.Handle("GET /api/consumer/v1/organization/settings", s.requireScope(gatehouse.ScopePrivacyWrite, s.showSettings()))
	mux.Handle("PATCH /api/consumer/v1/organization/settings", s.requireScope(gatehouse.ScopePrivacyWrite, s.updateSettings()))
	mux.Handle("GET /api/consumer/v1/keys", s.requireScope(gatehouse.ScopeKeysWrite, s.listKeys()))
	mux.Handle("PATCH /api/consumer/v1/keys/{id}", s.requireScope(gatehouse.ScopeKeysWrite, s.updateKey()))
	mux.Handle("GET /api/consumer/v1/privacy/erasure-requests", s.requireScope(gatehouse.ScopePrivacyWrite, s.listErasureRequests()))
	mux.Handle("POST /api/consumer/v1/alert-rules", s.requireScope(gatehouse.ScopeWebhooksWrite, s.createAlertRule()))
	mux.Handle("GET /api/consumer/v1/alert-rules", s.requireScope(gatehouse.ScopeWebhooksWrite, s.listAlertRules()))
	mux.Handle("GET /api/consumer/v1/alert-rules/{id}", s.requireScope(gatehouse.ScopeWebhooksWrite, s.showAlertRule()))
	mux.Handle("PATCH /api/consumer/v1/alert-rules/{id}", s.requireScope(gatehouse.ScopeWebhooksWrite, s.updateAlertRule()))
	mux.Handle("DELETE /api/consumer/v1/alert-rules/{id}", s.requireScope(gatehouse.ScopeWebhooksWrite, s.deleteAlertRule()))
	mux.Handle("POST /api/consumer/v1/alert-rules/{id}/test", s.requireScope(gatehouse.ScopeWebhooksWrite, s.testAlertRule()))
	mux.Handle("GET /api/consumer/v1/alerts", s.requireScope(gatehouse.ScopeWebhooksWrite, s.listAlerts()))
	mux.Handle("GET /api/consumer/v1/alerts/{id}", s.requireScope(gatehouse.ScopeWebhooksWrite, s.showAlert()))
	mux.Handle("GET /api/consumer/v1/insights", s.requireScope(gatehouse.ScopeEventsRead, s.listInsights()))
	// A game server's key creates the grants of purchases (the service
	// refuses it others); everything else of grants needs policies:write.
	mux.Handle("POST /api/consumer/v1/grants", s.requireAnyScope([]gatehouse.Scope{gatehouse.ScopePoliciesWrite, gatehouse.ScopeGameServer}, s.createGrant()))
	mux.Handle("GET /api/consumer/v1/grants", s.requireScope(gatehouse.ScopePoliciesWrite, s.listGrants()))
	mux.Handle("GET /api/consumer/v1/grants/{id}", s.requireScope(gatehouse.ScopePoliciesWrite, s.showGrant()))
	mux.Handle("DELETE /api/consumer/v1/grants/{id}", s.requireScope(gatehouse.ScopePoliciesWrite, s.revokeGrant()))
	// The platform calls it with no key: its token and signature stand in.
	mux.Handle("POST /api/consumer/v1/integrations/roblox/erasure/{token}", s.receiveErasure())
	mux.Handle("POST /api/consumer/v1/lockdowns", s.requireScope(gatehouse.ScopeCommandsWrite, s.startLockdown()))
	mux.Handle("GET /api/consumer/v1/lockdowns", s.requireScope(gatehouse.ScopeCommandsWrite, s.listLockdowns()))
	mux.Handle("GET /api/consumer/v1/lockdowns/{id}", s.requireScope(gatehouse.ScopeCommandsWrite, s.showLockdown()))
	mux.Handle("POST /api/consumer/v1/lockdowns/{id}/release", s.requireScope(gatehouse.ScopeCommandsWrite, s.releaseLockdown()))

	if s.Dashboard != nil {
		mux.Handle("/dashboard/", s.Dashboard)
		mux.Handle("GET /dashboard", http.RedirectHandler("/dashboard/", http.StatusMovedPermanently))
		// A person who opens the bare address wants the dashboard; 303,
		// not 301, so that a later version may serve something here.
		mux.Handle("GET /{$}", http.RedirectHandler("/dashboard/", http.StatusSeeOther))
	}
	if s.extraRoutes != nil {
		s.extraRoutes(mux)
	}
	mux.Handle("/", s.notFound(mux))
}

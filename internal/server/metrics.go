package server

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics are the service's Prometheus metrics. Route labels are route
// patterns, never raw paths, so their number stays bounded.
type Metrics struct {
	reg          *prometheus.Registry
	requests     *prometheus.CounterVec
	latency      *prometheus.HistogramVec
	authFailures *prometheus.CounterVec
	rateLimited  *prometheus.CounterVec
	responsesCut *prometheus.CounterVec
	// unreadablePolicies counts the policies the policy sets served left
	// out because they could not be read back; the log names each.
	unreadablePolicies prometheus.Counter
}

// NewMetrics registers the service's metrics, and the Go runtime and
// process collectors, on reg.
func NewMetrics(reg *prometheus.Registry) *Metrics {
	m := &Metrics{
		reg: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gatehouse_http_requests_total",
			Help: "HTTP requests by route pattern and status code.",
		}, []string{"route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "gatehouse_http_request_duration_seconds",
			Help:    "Time to answer an HTTP request, by route pattern.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route"}),
		authFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gatehouse_auth_failures_total",
			Help: "Failed authentications by reason: missing, malformed, unknown, revoked, expired.",
		}, []string{"reason"}),
		rateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gatehouse_rate_limited_total",
			Help: "Requests refused with 429, by limit: key (per-key rate), address (failed authentications) or sync (a game server's syncs).",
		}, []string{"limit"}),
		responsesCut: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "gatehouse_http_responses_cut_total",
			Help: "Responses that did not end as a whole, by route pattern and cause: aborted (the handler gave up mid-response, e.g. an export whose database failed) or shutdown (cut when the drain's deadline passed).",
		}, []string{"route", "cause"}),
		unreadablePolicies: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "gatehouse_policy_set_unreadable_policies_total",
			Help: "Policies left out of the policy sets served because they could not be read back (replace each with PUT /access-points/{id}/policy; the log names it). Counted once per answer that left one out.",
		}),
	}
	// Known label values start at zero, so dashboards and alerts see the
	// series before the first failure.
	for _, reason := range []string{"missing", "malformed", "unknown", "revoked", "expired"} {
		m.authFailures.WithLabelValues(reason)
	}
	m.rateLimited.WithLabelValues("key")
	m.rateLimited.WithLabelValues("address")
	m.rateLimited.WithLabelValues("sync")
	reg.MustRegister(m.requests, m.latency, m.authFailures, m.rateLimited, m.responsesCut, m.unreadablePolicies,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *Metrics) observe(route string, status int, elapsed time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(route).Observe(elapsed.Seconds())
}

// Handler serves the metrics in Prometheus's text format. The API serves
// it at GET /metrics unless Config.SeparateMetrics is set.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

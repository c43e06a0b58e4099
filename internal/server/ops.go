package server

import (
	"context"
	_ "embed"
	"net/http"
	"slices"
	"time"

	"github.com/gatehouse/gatehouse"
)

//go:embed openapi.json
var openapiJSON []byte

// OpenAPI returns the OpenAPI 3.1 document of the API, the one served at
// /api/consumer/v1/openapi.json. Tests check every exchange against it.
func OpenAPI() []byte { return slices.Clone(openapiJSON) }

// serveOpenAPI serves the embedded OpenAPI 3.1 document, without auth.
func serveOpenAPI() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(openapiJSON)
	})
}

// health is the answer of /healthz.
type health struct {
	Status  string `json:"status"`
	Version string `json:"version"`
}

// healthz answers while the process runs, naming the build that runs, so
// that a rollout can be followed instance by instance.
func (s *server) healthz() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, health{Status: "ok", Version: gatehouse.Version()})
	})
}

// readyz answers 200 while the database answers within 2 s, and 503 otherwise.
func (s *server) readyz() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := s.Service.Ping(ctx); err != nil {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
}

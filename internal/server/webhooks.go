package server

import (
	"bytes"
	"io"
	"net/http"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// maxWebhookBody bounds the bodies of POST and PATCH /webhooks: a URL,
// a description and filters, with room to spare.
const maxWebhookBody = 16 << 10

// createdWebhook is the answer to POST /webhooks: the endpoint and, this
// once, its secret.
type createdWebhook struct {
	gatehouse.Webhook
	Secret string `json:"secret"`
}

type webhookList struct {
	Data []gatehouse.Webhook `json:"data"`
}

type deliveryList struct {
	Data []gatehouse.WebhookDelivery `json:"data"`
}

// createWebhook serves POST /api/consumer/v1/webhooks.
func (s *server) createWebhook() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in, err := readWebhookInput(w, r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		hook, secret, err := s.Service.CreateWebhook(r.Context(), apiKey(r.Context()).OrgID, in)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		w.Header().Set("Location", "/api/consumer/v1/webhooks/"+hook.ID.String())
		writeJSON(w, http.StatusCreated, createdWebhook{Webhook: hook, Secret: secret})
	})
}

// listWebhooks serves GET /api/consumer/v1/webhooks.
func (s *server) listWebhooks() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hooks, err := s.Service.ListWebhooks(r.Context(), apiKey(r.Context()).OrgID)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, webhookList{Data: hooks})
	})
}

// showWebhook serves GET /api/consumer/v1/webhooks/{id}.
func (s *server) showWebhook() http.Handler {
	return webhookHandler(s, func(r *http.Request, id uuid.UUID) (any, int, error) {
		hook, err := s.Service.FindWebhook(r.Context(), apiKey(r.Context()).OrgID, id)
		return hook, http.StatusOK, err
	})
}

// updateWebhook serves PATCH /api/consumer/v1/webhooks/{id}.
func (s *server) updateWebhook() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in, err := readWebhookInput(w, r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		webhookHandler(s, func(r *http.Request, id uuid.UUID) (any, int, error) {
			hook, err := s.Service.UpdateWebhook(r.Context(), apiKey(r.Context()).OrgID, id, in)
			return hook, http.StatusOK, err
		}).ServeHTTP(w, r)
	})
}

// deleteWebhook serves DELETE /api/consumer/v1/webhooks/{id}.
func (s *server) deleteWebhook() http.Handler {
	return webhookHandler(s, func(r *http.Request, id uuid.UUID) (any, int, error) {
		return nil, http.StatusNoContent, s.Service.DeleteWebhook(r.Context(), apiKey(r.Context()).OrgID, id)
	})
}

// listDeliveries serves GET /api/consumer/v1/webhooks/{id}/deliveries:
// the newest first, limit of them (the log keeps the last 1,000).
func (s *server) listDeliveries() http.Handler {
	return webhookHandler(s, func(r *http.Request, id uuid.UUID) (any, int, error) {
		v, err := parseQuery(r)
		if err != nil {
			return nil, 0, err
		}
		limit, err := gatehouse.ParseLimitQuery(v, gatehouse.MaxDeliveriesListed)
		if err != nil {
			return nil, 0, err
		}
		ds, err := s.Service.ListWebhookDeliveries(r.Context(), apiKey(r.Context()).OrgID, id, limit)
		return deliveryList{Data: ds}, http.StatusOK, err
	})
}

// redeliver serves POST /api/consumer/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver:
// 202 with the queued delivery.
func (s *server) redeliver() http.Handler {
	return webhookHandler(s, func(r *http.Request, id uuid.UUID) (any, int, error) {
		deliveryID, err := gatehouse.ParseUUID(r.PathValue("deliveryId"))
		if err != nil {
			return nil, 0, gatehouse.Invalid("deliveryId", "must be a UUID, e.g. 0193a5b2-7c1e-7d3f-9a4b-5c6d7e8f9a0b")
		}
		d, err := s.Service.RedeliverWebhook(r.Context(), apiKey(r.Context()).OrgID, id, deliveryID)
		return d, http.StatusAccepted, err
	})
}

// testWebhook serves POST /api/consumer/v1/webhooks/{id}/test: 202 with
// the queued webhook.test delivery.
func (s *server) testWebhook() http.Handler {
	return webhookHandler(s, func(r *http.Request, id uuid.UUID) (any, int, error) {
		d, err := s.Service.TestWebhook(r.Context(), apiKey(r.Context()).OrgID, id)
		return d, http.StatusAccepted, err
	})
}

// replayWebhook serves POST /api/consumer/v1/webhooks/{id}/replay with
// a starting point: {"after": cursor}, or {"from": "start"} for the feed's
// start. Without one (null, "", nothing) it is a 400 saying what to send:
// a default of the start resent every event by accident. 200 answers the
// endpoint and replayEvents, how many events the replay sends.
func (s *server) replayWebhook() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, err := readJSON(w, r, maxWebhookBody)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		var body struct {
			After *string `json:"after"`
			From  *string `json:"from"`
		}
		var from gatehouse.ReplayFrom
		if _, err = gatehouse.DecodeFields(data, &body, []string{"after", "from"}); err == nil {
			from, err = gatehouse.ParseReplayFrom(deref(body.After), deref(body.From))
		}
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		webhookHandler(s, func(r *http.Request, id uuid.UUID) (any, int, error) {
			hook, n, err := s.Service.ReplayWebhook(r.Context(), apiKey(r.Context()).OrgID, id, from)
			return replayedWebhook{hook, n}, http.StatusOK, err
		}).ServeHTTP(w, r)
	})
}

// replayedWebhook is the answer of a replay: the endpoint at its new
// position, and how many events the replay sends.
type replayedWebhook struct {
	gatehouse.Webhook
	ReplayEvents int64 `json:"replayEvents"`
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// rotateWebhookSecret serves POST /api/consumer/v1/webhooks/{id}/rotate-secret
// with an optional {"overlapSeconds": N}: 200 with the endpoint and,
// this once, its new secret.
func (s *server) rotateWebhookSecret() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			OverlapSeconds *int64 `json:"overlapSeconds"`
		}
		raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxWebhookBody))
		r.Body = io.NopCloser(bytes.NewReader(raw))
		if err != nil || len(bytes.TrimSpace(raw)) > 0 { // no body: the default overlap
			data, err := readJSON(w, r, maxWebhookBody)
			if err == nil {
				_, err = gatehouse.DecodeFields(data, &body, []string{"overlapSeconds"})
			}
			if err != nil {
				s.writeError(w, r, err)
				return
			}
		}
		var overlap *time.Duration
		if body.OverlapSeconds != nil {
			if *body.OverlapSeconds < 0 || *body.OverlapSeconds > int64(gatehouse.MaxWebhookSecretOverlap/time.Second) {
				s.writeError(w, r, gatehouse.Invalid("overlapSeconds", "must be from 0 to %d (7 days)", int64(gatehouse.MaxWebhookSecretOverlap/time.Second)))
				return
			}
			d := time.Duration(*body.OverlapSeconds) * time.Second
			overlap = &d
		}
		webhookHandler(s, func(r *http.Request, id uuid.UUID) (any, int, error) {
			hook, secret, err := s.Service.RotateWebhookSecret(r.Context(), apiKey(r.Context()).OrgID, id, overlap)
			return createdWebhook{Webhook: hook, Secret: secret}, http.StatusOK, err
		}).ServeHTTP(w, r)
	})
}

// webhookHandler reads the endpoint id of the path, runs fn and writes
// its answer (none for 204).
func webhookHandler(s *server, fn func(*http.Request, uuid.UUID) (any, int, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := gatehouse.ParseUUID(r.PathValue("id"))
		if err != nil {
			s.writeError(w, r, gatehouse.Invalid("id", "must be a UUID, e.g. 0193a5b2-7c1e-7d3f-9a4b-5c6d7e8f9a0b"))
			return
		}
		v, status, err := fn(r, id)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if status == http.StatusNoContent {
			w.WriteHeader(status)
			return
		}
		writeJSON(w, status, v)
	})
}

func readWebhookInput(w http.ResponseWriter, r *http.Request) (gatehouse.WebhookInput, error) {
	data, err := readJSON(w, r, maxWebhookBody)
	if err != nil {
		return gatehouse.WebhookInput{}, err
	}
	return gatehouse.DecodeWebhookInput(data)
}

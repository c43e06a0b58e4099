package server

import (
	"net/http"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// keyBody is an API key as the API shows it: never the raw key, which
// exists only in the answer that created it, nor its hash.
type keyBody struct {
	ID     uuid.UUID         `json:"id"`
	Name   string            `json:"name"`
	Prefix string            `json:"prefix"`
	Scopes []gatehouse.Scope `json:"scopes"`
	// RateLimit is the key's own rate, "N/s" or "N/m"; null: the server's.
	RateLimit *string `json:"rateLimit"`
	Status    string  `json:"status"`
	// ExpiresSoon: active, and expiring within gatehouse.ExpiryWarning.
	ExpiresSoon bool            `json:"expiresSoon"`
	ExpiresAt   *gatehouse.Time `json:"expiresAt"`
	RevokedAt   *gatehouse.Time `json:"revokedAt"`
	LastUsedAt  *gatehouse.Time `json:"lastUsedAt"`
	CreatedAt   gatehouse.Time  `json:"createdAt"`
}

func newKeyBody(k gatehouse.APIKey, now time.Time) keyBody {
	b := keyBody{ID: k.ID, Name: k.Name, Prefix: k.Prefix, Scopes: k.Scopes, Status: k.Status(now),
		ExpiresSoon: k.ExpiresSoon(now), ExpiresAt: gatehouse.TimePtr(k.ExpiresAt), RevokedAt: gatehouse.TimePtr(k.RevokedAt),
		LastUsedAt: gatehouse.TimePtr(k.LastUsedAt), CreatedAt: gatehouse.Time(k.CreatedAt)}
	if k.RateLimit != nil {
		s := k.RateLimit.String()
		b.RateLimit = &s
	}
	return b
}

// listKeys serves GET /api/consumer/v1/keys: the organization's keys,
// newest first, all in one page (an organization has few).
func (s *server) listKeys() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := parseQuery(r); err != nil {
			s.writeError(w, r, err)
			return
		}
		keys, err := s.Service.ListAPIKeys(r.Context(), apiKey(r.Context()).OrgID)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		now := s.Now()
		body := struct {
			Data []keyBody `json:"data"`
		}{Data: make([]keyBody, len(keys))}
		for i, k := range keys {
			body.Data[i] = newKeyBody(k, now)
		}
		writeJSON(w, http.StatusOK, body)
	})
}

// updateKey serves PATCH /api/consumer/v1/keys/{id}: {"rateLimit":
// "N/s"|"N/m"|null} sets the key's rate (null: the server's); a body
// without it changes nothing. The service refuses a key's change of
// itself or of another key with keys:write.
func (s *server) updateKey() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := gatehouse.ParseUUID(r.PathValue("id"))
		if err != nil {
			s.writeError(w, r, gatehouse.Invalid("id", "must be a UUID, e.g. 0193a5b2-7c1e-7d3f-9a4b-5c6d7e8f9a0b"))
			return
		}
		data, err := readJSON(w, r, 4<<10)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		var body struct {
			RateLimit *string `json:"rateLimit"`
		}
		sent, err := gatehouse.DecodeFields(data, &body, []string{"rateLimit"})
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		orgID := apiKey(r.Context()).OrgID
		var k gatehouse.APIKey
		if _, ok := sent["rateLimit"]; ok {
			var rate *gatehouse.Rate
			if body.RateLimit != nil {
				parsed, err := gatehouse.ParseRate(*body.RateLimit)
				if err != nil {
					s.writeError(w, r, gatehouse.Invalid("rateLimit", "%v", err))
					return
				}
				rate = &parsed
			}
			k, err = s.Service.SetAPIKeyRate(r.Context(), orgID, id, rate)
		} else {
			k, err = s.Service.FindAPIKey(r.Context(), orgID, id)
		}
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, newKeyBody(k, s.Now()))
	})
}

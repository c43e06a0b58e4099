package server

import (
	"net/http"

	"github.com/gatehouse/gatehouse"
)

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
			Data []gatehouse.APIKeyView `json:"data"`
		}{Data: make([]gatehouse.APIKeyView, len(keys))}
		for i, k := range keys {
			body.Data[i] = k.View(now)
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
		writeJSON(w, http.StatusOK, k.View(s.Now()))
	})
}

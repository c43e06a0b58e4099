package server

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"

	"github.com/gatehouse/gatehouse"
)

// maxMessagingBody bounds PUT /messaging/{universeId}: a key and its
// field name, with room to spare.
const maxMessagingBody = 8 << 10

// messagingList is the body of GET /messaging.
type messagingList struct {
	Data []gatehouse.MessagingKey `json:"data"`
}

// listMessaging serves GET /api/consumer/v1/messaging: the universes
// whose commands are pushed, by key hint.
func (s *server) listMessaging() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		keys, err := s.Service.ListMessaging(r.Context(), apiKey(r.Context()).OrgID)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, messagingList{Data: keys})
	})
}

// setMessaging serves PUT /api/consumer/v1/messaging/{universeId} with
// {"apiKey": "…"}: the key is sealed and never returned, only its hint.
func (s *server) setMessaging() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, err := decodeMessagingKey(w, r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		k, err := s.Service.SetMessaging(r.Context(), apiKey(r.Context()).OrgID, r.PathValue("universeId"), key)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, k)
	})
}

// removeMessaging serves DELETE /api/consumer/v1/messaging/{universeId}.
func (s *server) removeMessaging() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := s.Service.RemoveMessaging(r.Context(), apiKey(r.Context()).OrgID, r.PathValue("universeId")); err != nil {
			s.writeError(w, r, err)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
}

// decodeMessagingKey reads {"apiKey": "…"} and nothing else. No error
// message quotes the body: it holds a credential.
func decodeMessagingKey(w http.ResponseWriter, r *http.Request) (string, error) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return "", errorf(http.StatusUnsupportedMediaType, "unsupported_media_type", "send the body as Content-Type: application/json")
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxMessagingBody))
	dec.DisallowUnknownFields()
	var body struct {
		APIKey *string `json:"apiKey"`
	}
	err := dec.Decode(&body)
	if err == nil && dec.More() {
		err = errTrailingData
	}
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return "", gatehouse.Invalid("apiKey", "must be at most %d characters", gatehouse.MaxMessagingKey)
	case err != nil && !errors.Is(err, io.EOF):
		return "", errorf(http.StatusBadRequest, "invalid_json", `the body must be one JSON object, {"apiKey": "…"}`)
	case body.APIKey == nil:
		return "", gatehouse.Invalid("apiKey", "is required")
	}
	return *body.APIKey, nil
}

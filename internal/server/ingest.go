package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/gatehouse/gatehouse"
)

// Limits of one POST /events request.
const (
	maxIngestBody   = 1 << 20
	maxIngestEvents = 1000
)

// ingestEvents serves POST /api/consumer/v1/events: a batch stored all or
// nothing, idempotent by event id.
func (s *server) ingestEvents() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		events, err := s.decodeIngest(w, r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), s.QueryTimeout)
		defer cancel()
		res, err := s.Store.IngestEvents(ctx, apiKey(r.Context()).OrgID, events)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, res)
	})
}

// decodeIngest reads and checks a whole batch, reporting every problem of
// every event at once, keyed like events[3].occurredAt.
func (s *server) decodeIngest(w http.ResponseWriter, r *http.Request) ([]gatehouse.NewEvent, error) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return nil, errorf(http.StatusUnsupportedMediaType, "unsupported_media_type", "send the body as Content-Type: application/json")
	}
	var body struct {
		Events []json.RawMessage `json:"events"`
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxIngestBody))
	dec.DisallowUnknownFields()
	err := dec.Decode(&body)
	var (
		tooLarge *http.MaxBytesError
		typeErr  *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &tooLarge):
		return nil, errorf(http.StatusRequestEntityTooLarge, "request_too_large", "the body is over %d bytes; send at most %d events of at most 1 MiB in all", maxIngestBody, maxIngestEvents)
	case errors.As(err, &typeErr):
		return nil, gatehouse.Invalid("events", "must be an array of event objects")
	case err != nil && strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return nil, gatehouse.Invalid(field, `is not a known field; the body is {"events": [...]}`)
	case err != nil:
		return nil, errorf(http.StatusBadRequest, "invalid_json", "the body is not valid JSON: %v", err)
	case dec.More():
		return nil, errorf(http.StatusBadRequest, "invalid_json", "the body holds more than one JSON value")
	case len(body.Events) == 0 || len(body.Events) > maxIngestEvents:
		return nil, gatehouse.Invalid("events", "must hold 1 to %d events", maxIngestEvents)
	}
	now := s.Now()
	events := make([]gatehouse.NewEvent, len(body.Events))
	var errs gatehouse.ValidationError
	for i, raw := range body.Events {
		ev, err := gatehouse.DecodeIngestEvent(raw, now)
		var ve *gatehouse.ValidationError
		if errors.As(err, &ve) {
			errs.Merge(fmt.Sprintf("events[%d]", i), ve)
		}
		events[i] = ev
	}
	return events, errs.Err()
}

package server

import (
	"encoding/json"
	"net/http"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// maxDecisionBody bounds the body of POST /decisions: the most a game
// server may state of a player (200 groups, 500 gamepasses and 500 badges
// of 20-digit ids) is 29 KB (TestDecisionBodyLimit).
const maxDecisionBody = 64 << 10

var (
	decisionFields   = []string{"accessPointId", "platformUserId", "serverJobId", "attributes", "record", "at"}
	attributesFields = []string{"groups", "gamepasses", "badges", "premium"}
)

// decisionJSON is a decision request as sent; attributes are read
// strictly in turn and at is read here, so that their problems are
// reported under their own field.
type decisionJSON struct {
	AccessPointID  uuid.UUID       `json:"accessPointId"`
	PlatformUserID string          `json:"platformUserId"`
	ServerJobID    string          `json:"serverJobId"`
	Attributes     json.RawMessage `json:"attributes"`
	Record         bool            `json:"record"`
	At             *string         `json:"at"`
}

// decide serves POST /api/consumer/v1/decisions: the decision for a
// player at an access point by its current policy and active remote
// unlocks, recorded as an event in the same call when record is true.
// Another organization's access point is a 404, never a decision.
func (s *server) decide() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, err := decodeDecision(w, r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		res, err := s.Service.Decide(r.Context(), apiKey(r.Context()).OrgID, req)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, res)
	})
}

// decodeDecision reads a decision request, reporting every problem at
// once keyed by field (attributes.groups.456, at).
func decodeDecision(w http.ResponseWriter, r *http.Request) (gatehouse.DecisionRequest, error) {
	var req gatehouse.DecisionRequest
	data, err := readJSON(w, r, maxDecisionBody)
	if err != nil {
		return req, err
	}
	var (
		errs gatehouse.ValidationError
		body decisionJSON
	)
	_, err = gatehouse.DecodeFields(data, &body, decisionFields)
	mergeIssues(&errs, "", err)
	req.AccessPointID, req.PlatformUserID, req.ServerJobID, req.Record = body.AccessPointID, body.PlatformUserID, body.ServerJobID, body.Record
	if isJSONValue(body.Attributes) {
		_, err := gatehouse.DecodeFields(body.Attributes, &req.Attributes, attributesFields)
		mergeIssues(&errs, "attributes", err)
	}
	if body.At != nil {
		if t, ok := parseInstant(*body.At); ok {
			req.At = &t
		} else if !reported(&errs, "at") {
			errs.Add("at", "must be an RFC 3339 instant with an offset, e.g. 2026-11-20T23:30:00Z")
		}
	}
	if req.AccessPointID == uuid.Nil && !reported(&errs, "accessPointId") {
		errs.Add("accessPointId", "is required")
	}
	if req.Record && body.At != nil {
		errs.Add("at", "must be absent when record is true: a recorded decision is made now")
	}
	mergeIssues(&errs, "", req.DecisionInput.Check())
	return req, errs.Err()
}

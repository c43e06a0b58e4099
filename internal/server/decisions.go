package server

import (
	"net/http"

	"github.com/gatehouse/gatehouse"
)

// maxDecisionBody bounds the body of POST /decisions: the most a game
// server may state of a player (200 groups, 500 gamepasses and 500 badges
// of 20-digit ids) is 29 KB (TestDecisionBodyLimit).
const maxDecisionBody = 64 << 10

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
	data, err := readJSON(w, r, maxDecisionBody)
	if err != nil {
		return gatehouse.DecisionRequest{}, err
	}
	return gatehouse.DecodeDecisionRequest(data)
}

package server

import (
	"net/http"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// ruleWithSecret is the answer to POST /alert-rules (and to a PATCH that
// made the rule's destination standard-webhooks): the rule and, this
// once, its secret.
type ruleWithSecret struct {
	gatehouse.AlertRule
	Secret string `json:"secret,omitempty"`
}

type alertRuleList struct {
	Data []gatehouse.AlertRule `json:"data"`
}

type alertList struct {
	Data       []gatehouse.Alert `json:"data"`
	NextCursor *string           `json:"nextCursor"`
}

// createAlertRule serves POST /api/consumer/v1/alert-rules.
func (s *server) createAlertRule() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in, err := readAlertRuleInput(w, r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		rule, secret, err := s.Service.CreateAlertRule(r.Context(), apiKey(r.Context()).OrgID, in)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		w.Header().Set("Location", "/api/consumer/v1/alert-rules/"+rule.ID.String())
		writeJSON(w, http.StatusCreated, ruleWithSecret{AlertRule: rule, Secret: secret})
	})
}

// listAlertRules serves GET /api/consumer/v1/alert-rules.
func (s *server) listAlertRules() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rules, err := s.Service.ListAlertRules(r.Context(), apiKey(r.Context()).OrgID)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, alertRuleList{Data: rules})
	})
}

// showAlertRule serves GET /api/consumer/v1/alert-rules/{id}.
func (s *server) showAlertRule() http.Handler {
	return webhookHandler(s, func(r *http.Request, id uuid.UUID) (any, int, error) {
		rule, err := s.Service.FindAlertRule(r.Context(), apiKey(r.Context()).OrgID, id)
		return rule, http.StatusOK, err
	})
}

// updateAlertRule serves PATCH /api/consumer/v1/alert-rules/{id}.
func (s *server) updateAlertRule() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in, err := readAlertRuleInput(w, r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		webhookHandler(s, func(r *http.Request, id uuid.UUID) (any, int, error) {
			rule, secret, err := s.Service.UpdateAlertRule(r.Context(), apiKey(r.Context()).OrgID, id, in)
			return ruleWithSecret{AlertRule: rule, Secret: secret}, http.StatusOK, err
		}).ServeHTTP(w, r)
	})
}

// deleteAlertRule serves DELETE /api/consumer/v1/alert-rules/{id}.
func (s *server) deleteAlertRule() http.Handler {
	return webhookHandler(s, func(r *http.Request, id uuid.UUID) (any, int, error) {
		return nil, http.StatusNoContent, s.Service.DeleteAlertRule(r.Context(), apiKey(r.Context()).OrgID, id)
	})
}

// testAlertRule serves POST /api/consumer/v1/alert-rules/{id}/test: 202
// with the test alert, queued for delivery.
func (s *server) testAlertRule() http.Handler {
	return webhookHandler(s, func(r *http.Request, id uuid.UUID) (any, int, error) {
		a, err := s.Service.TestAlertRule(r.Context(), apiKey(r.Context()).OrgID, id)
		return a, http.StatusAccepted, err
	})
}

// listAlerts serves GET /api/consumer/v1/alerts: what fired, newest first.
func (s *server) listAlerts() http.Handler {
	return listPage(s, s.Service.ReadAlertQuery, s.Service.ListAlerts,
		func(orgID uuid.UUID, f gatehouse.AlertFilter, page gatehouse.AlertPage) any {
			body := alertList{Data: page.Alerts}
			if page.Next != nil {
				c := s.Service.AlertCursor(orgID, f, *page.Next)
				body.NextCursor = &c
			}
			return body
		})
}

// showAlert serves GET /api/consumer/v1/alerts/{id}: the alert with every
// attempt at delivering it.
func (s *server) showAlert() http.Handler {
	return webhookHandler(s, func(r *http.Request, id uuid.UUID) (any, int, error) {
		a, err := s.Service.FindAlert(r.Context(), apiKey(r.Context()).OrgID, id)
		return a, http.StatusOK, err
	})
}

func readAlertRuleInput(w http.ResponseWriter, r *http.Request) (gatehouse.AlertRuleInput, error) {
	data, err := readJSON(w, r, maxWebhookBody)
	if err != nil {
		return gatehouse.AlertRuleInput{}, err
	}
	return gatehouse.DecodeAlertRuleInput(data)
}

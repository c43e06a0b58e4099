package server

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/gatehouse/gatehouse"
)

// eraseTimeout bounds one erasure, which goes on when the client that
// asked for it leaves: it deletes in short batches, and a retry of the
// request resumes where it stopped.
const eraseTimeout = 5 * time.Minute

// maxErasureBody bounds a request of the platform's erasure webhook: its
// notifications are a few hundred bytes.
const maxErasureBody = 64 << 10

// settings is the body of GET and PATCH /organization/settings.
type settings struct {
	RetentionDays int `json:"retentionDays"`
}

// erasePlatformUser serves DELETE /api/consumer/v1/platform-users/{platformUserId}.
func (s *server) erasePlatformUser() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), eraseTimeout)
		defer cancel()
		er, err := s.Service.ErasePlatformUser(ctx, apiKey(r.Context()).OrgID, r.PathValue("platformUserId"))
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, er)
	})
}

// showSettings serves GET /api/consumer/v1/organization/settings.
func (s *server) showSettings() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o, err := s.Service.Organization(r.Context(), apiKey(r.Context()).OrgID)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, settings{RetentionDays: o.RetentionDays})
	})
}

// updateSettings serves PATCH /api/consumer/v1/organization/settings:
// the fields sent change, the others stay.
func (s *server) updateSettings() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, err := readJSON(w, r, 4<<10)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		var body struct {
			RetentionDays *int `json:"retentionDays"`
		}
		if _, err := gatehouse.DecodeFields(data, &body, []string{"retentionDays"}); err != nil {
			s.writeError(w, r, err)
			return
		}
		orgID := apiKey(r.Context()).OrgID
		var o gatehouse.Organization
		if body.RetentionDays != nil {
			o, err = s.Service.SetRetention(r.Context(), orgID, *body.RetentionDays)
		} else {
			o, err = s.Service.Organization(r.Context(), orgID)
		}
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, settings{RetentionDays: o.RetentionDays})
	})
}

// listErasureRequests serves GET /api/consumer/v1/privacy/erasure-requests.
func (s *server) listErasureRequests() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rs, err := s.erasureRequests(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, struct {
			Data []gatehouse.ErasureRequest `json:"data"`
		}{rs})
	})
}

func (s *server) erasureRequests(r *http.Request) ([]gatehouse.ErasureRequest, error) {
	v, err := parseQuery(r)
	if err != nil {
		return nil, err
	}
	limit, err := gatehouse.ParseLimitQuery(v, gatehouse.MaxLimit)
	if err != nil {
		return nil, err
	}
	return s.Service.ListErasureRequests(r.Context(), apiKey(r.Context()).OrgID, limit)
}

// receiveErasure serves POST /api/consumer/v1/integrations/roblox/erasure/{token},
// which the platform calls with no API key: the token finds the
// organization and its secret verifies the roblox-signature. 200 once the
// erasure is durable (or when there was nothing to do: a duplicate, the
// platform's test), 401 when the signature or its timestamp does not
// verify, 404 for an unknown token, 400 for a body that is no
// notification. Any answer but a 2xx makes the platform send it again.
func (s *server) receiveErasure() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxErasureBody))
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			s.writeError(w, r, errorf(http.StatusRequestEntityTooLarge, "request_too_large", "the body is over %d bytes", maxErasureBody))
			return
		}
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		// A request that does not verify (or names no token) spends the
		// client address's budget of failed authentications, as a bad API
		// key does: refused requests cannot be recorded faster than it.
		refund, err := s.reserveFailure(r)(r.Context())
		var blocked *addressBlocked
		if errors.As(err, &blocked) {
			s.Metrics.rateLimited.WithLabelValues("address").Inc()
			w.Header().Set("Retry-After", ceilSeconds(blocked.wait))
			s.writeError(w, r, errorf(http.StatusTooManyRequests, "rate_limited",
				"too many refused requests from this address; retry after %s s", ceilSeconds(blocked.wait)))
			return
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), eraseTimeout)
		defer cancel()
		rec, err := s.Service.ReceiveErasure(ctx, r.PathValue("token"), r.Header.Get("roblox-signature"), body)
		if refund != nil && !errors.Is(err, gatehouse.ErrErasureUnverified) && !errors.Is(err, gatehouse.ErrNotFound) {
			refund()
		}
		switch {
		case errors.Is(err, gatehouse.ErrErasureUnverified):
			s.writeError(w, r, errorf(http.StatusUnauthorized, "signature_invalid", "%s", rec.Detail))
		case errors.Is(err, gatehouse.ErrNotFound):
			s.writeError(w, r, errorf(http.StatusNotFound, "not_found", "no erasure webhook has this URL"))
		case err != nil:
			s.writeError(w, r, err)
		default:
			writeJSON(w, http.StatusOK, struct {
				Outcome  gatehouse.ErasureOutcome `json:"outcome"`
				Events   int                      `json:"events"`
				Commands int                      `json:"commands"`
			}{rec.Outcome, rec.Events, rec.Commands})
		}
	})
}

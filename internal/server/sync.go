package server

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/ratelimit"
)

// maxSyncBody bounds the body of a sync: a thousand players and a
// hundred acknowledgements fit several times over.
const maxSyncBody = 256 << 10

// DefaultSyncLimit is the rate of syncs of one game server under one
// key: a server long-polls, so it needs a few a minute; a burst covers
// the quick syncs of its acknowledgements.
var DefaultSyncLimit = ratelimit.Limit{Rate: gatehouse.Rate{Count: 60, Per: time.Minute}, Burst: 10}

var (
	syncFields = []string{"universeId", "placeId", "players", "acks", "cursor", "waitSeconds"}
	ackFields  = []string{"commandId", "result", "detail"}
)

// syncBody is a sync's body as sent: each acknowledgement is read
// strictly on its own, so that its problems are keyed acks[i].field.
type syncBody struct {
	UniverseID  string            `json:"universeId"`
	PlaceID     *string           `json:"placeId"`
	Players     []string          `json:"players"`
	Acks        []json.RawMessage `json:"acks"`
	Cursor      *string           `json:"cursor"`
	WaitSeconds *int              `json:"waitSeconds"`
}

// syncServer serves POST /api/consumer/v1/servers/{serverJobId}/sync, a
// game server's heartbeat, acknowledgements and long poll at once. It
// may wait waitSeconds for a command, so its deadlines are that wait
// plus the query timeout; it holds no read slot while it waits (syncs
// read no events), and the client's leaving ends the wait.
func (s *server) syncServer() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, wait, err := decodeSync(w, r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if !s.allowSync(w, r, req.ServerJobID) {
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), wait+s.QueryTimeout)
		defer cancel()
		// The server's WriteTimeout is for ordinary requests; this one
		// answers only after its wait.
		http.NewResponseController(w).SetWriteDeadline(time.Now().Add(wait + s.QueryTimeout))
		res, err := s.Service.Sync(ctx, apiKey(ctx).OrgID, req)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, res)
	})
}

// decodeSync reads a sync request and checks it, reporting every problem
// at once, and returns how long it may wait.
func decodeSync(w http.ResponseWriter, r *http.Request) (gatehouse.SyncRequest, time.Duration, error) {
	req := gatehouse.SyncRequest{ServerJobID: r.PathValue("serverJobId")}
	data, err := readJSON(w, r, maxSyncBody)
	if err != nil {
		return req, 0, err
	}
	var (
		body syncBody
		errs gatehouse.ValidationError
	)
	_, err = gatehouse.DecodeFields(data, &body, syncFields)
	errs.Absorb("", err)
	req.UniverseID, req.PlaceID, req.Players = body.UniverseID, body.PlaceID, body.Players
	req.Cursor, req.WaitSeconds = body.Cursor, body.WaitSeconds
	for i, raw := range body.Acks {
		var a gatehouse.Ack
		_, err := gatehouse.DecodeFields(raw, &a, ackFields)
		errs.Absorb("acks["+strconv.Itoa(i)+"]", err)
		req.Acks = append(req.Acks, a)
	}
	_, _, wait, err := req.Check()
	errs.Absorb("", err)
	return req, wait, errs.Err()
}

// allowSync spends one sync of the (key, server) bucket, shared by every
// instance through the limiter; it answers 429 itself and returns false
// when the bucket is empty. When the limiter cannot decide, the sync is
// served.
func (s *server) allowSync(w http.ResponseWriter, r *http.Request, jobID string) bool {
	limit := s.SyncLimit
	bucket := "sync:" + apiKey(r.Context()).ID.String() + ":" + jobID
	res, err := s.Limiter.Allow(r.Context(), bucket, limit, 1)
	if err != nil {
		s.Logger.LogAttrs(r.Context(), slog.LevelWarn, "rate limiter unavailable; sync served unlimited",
			slog.String("requestId", requestID(r.Context())), slog.String("error", err.Error()))
		return true
	}
	if res.Allowed {
		return true
	}
	retry := ceilSeconds(max(res.RetryAfter, time.Second))
	s.Metrics.rateLimited.WithLabelValues("sync").Inc()
	w.Header().Set("Retry-After", retry)
	s.writeError(w, r, errorf(http.StatusTooManyRequests, "rate_limited",
		"this server syncs more often than %s; retry after %s s", limit.Rate, retry))
	return false
}

package server

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/httperror"
	"github.com/google/uuid"
)

// maxCommandBody bounds the body of POST /commands: a command request is
// a few hundred bytes.
const maxCommandBody = 16 << 10

// commandFields are the fields of a command request's body.
var commandFields = []string{"type", "accessPointId", "scope", "serverJobId", "platformUserId", "durationSeconds", "ttlSeconds", "note"}

// commandList is the body of GET /commands.
type commandList struct {
	Data       []gatehouse.Command `json:"data"`
	NextCursor *string             `json:"nextCursor"`
}

// commandConflict is the body of a 409 to a cancel: the error envelope
// and the command as it stands, so a client learns how it settled.
type commandConflict struct {
	httperror.Body
	Command gatehouse.Command `json:"command"`
}

// issueCommand serves POST /api/consumer/v1/commands. A retry with the
// same Idempotency-Key and body answers as the first request did, with
// Idempotent-Replayed: true.
func (s *server) issueCommand() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, idem, err := decodeCommand(w, r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		c, replayed, err := s.Service.IssueCommand(r.Context(), apiKey(r.Context()).OrgID, req, idem)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		w.Header().Set("Location", "/api/consumer/v1/commands/"+c.ID.String())
		if replayed {
			w.Header().Set("Idempotent-Replayed", "true")
		}
		writeJSON(w, http.StatusCreated, c)
	})
}

// decodeCommand reads a command request and its Idempotency-Key,
// reporting every problem of the body and the header at once.
func decodeCommand(w http.ResponseWriter, r *http.Request) (gatehouse.CommandRequest, string, error) {
	var req gatehouse.CommandRequest
	data, err := readJSON(w, r, maxCommandBody)
	if err != nil {
		return req, "", err
	}
	var errs gatehouse.ValidationError
	_, err = gatehouse.DecodeFields(data, &req, commandFields)
	errs.Absorb("", err)
	_, err = req.Check()
	errs.Absorb("", err)
	if len(r.Header.Values("Idempotency-Key")) > 1 {
		errs.Add("Idempotency-Key", "must be given at most once")
	}
	return req, r.Header.Get("Idempotency-Key"), errs.Err()
}

// listCommands serves GET /api/consumer/v1/commands: newest first, in
// keyset pages as GET /events.
func (s *server) listCommands() http.Handler {
	return listPage(s, s.Service.ReadCommandQuery, s.Service.ListCommands,
		func(orgID uuid.UUID, f gatehouse.CommandFilter, page gatehouse.CommandPage) any {
			body := commandList{Data: page.Commands}
			if body.Data == nil {
				body.Data = []gatehouse.Command{}
			}
			if page.Next != nil {
				c := s.Service.CommandCursor(orgID, f, *page.Next)
				body.NextCursor = &c
			}
			return body
		})
}

// showCommand serves GET /api/consumer/v1/commands/{id}: the command
// with its deliveries.
func (s *server) showCommand() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := commandID(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		c, err := s.Service.FindCommand(r.Context(), apiKey(r.Context()).OrgID, id)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, commandRead{c})
	})
}

// cancelCommand serves POST /api/consumer/v1/commands/{id}/cancel. A
// settled command is a 409 that carries the command.
func (s *server) cancelCommand() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := commandID(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		c, err := s.Service.CancelCommand(r.Context(), apiKey(r.Context()).OrgID, id)
		var conflict *gatehouse.ConflictError
		switch {
		case errors.As(err, &conflict):
			a := httperror.For(err)
			writeJSON(w, a.Status, commandConflict{Command: c, Body: httperror.Body{
				Error: gatehouse.Redact(a.Message), Code: a.Code, RequestID: requestID(r.Context()), Issues: a.Issues}})
		case err != nil:
			s.writeError(w, r, err)
		default:
			writeJSON(w, http.StatusOK, c)
		}
	})
}

// commandID reads the {id} of a command's path.
func commandID(r *http.Request) (uuid.UUID, error) {
	id, err := gatehouse.ParseUUID(r.PathValue("id"))
	if err != nil {
		return uuid.Nil, gatehouse.Invalid("id", "must be a UUID, e.g. 0193a5b2-7c1e-7d3f-9a4b-5c6d7e8f9a0b")
	}
	return id, nil
}

// commandRead is one command as GET /commands/{id} answers it: with its
// deliveries, [] when no server was sent it yet (Command leaves an empty
// list out, as a list of commands carries none).
type commandRead struct{ gatehouse.Command }

func (c commandRead) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(c.Command)
	if err != nil || len(c.Deliveries) > 0 {
		return b, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return nil, err
	}
	fields["deliveries"] = json.RawMessage("[]")
	return json.Marshal(fields)
}

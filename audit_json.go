package gatehouse

import (
	"encoding/json"

	"github.com/google/uuid"
)

// auditEntryJSON is the shape of an entry in the API and the CLI.
type auditEntryJSON struct {
	ID            uuid.UUID              `json:"id"`
	At            Time                   `json:"at"`
	Action        AuditAction            `json:"action"`
	Actor         auditActorJSON         `json:"actor"`
	Target        auditTargetJSON        `json:"target"`
	Changes       map[string]AuditChange `json:"changes"`
	RequestID     string                 `json:"requestId"`
	ClientAddress string                 `json:"clientAddress"`
}

// auditActorJSON names a user by email, a key by prefix and an operator's
// CLI by name (user@host), as the contract shows them; the system has
// none.
type auditActorJSON struct {
	Type   ActorType  `json:"type"`
	ID     *uuid.UUID `json:"id,omitempty"`
	Email  string     `json:"email,omitempty"`
	Prefix string     `json:"prefix,omitempty"`
	Name   string     `json:"name,omitempty"`
}

type auditTargetJSON struct {
	Type string     `json:"type"`
	ID   *uuid.UUID `json:"id"`
	Name string     `json:"name"`
}

// MarshalJSON writes the entry as the API documents it.
func (e AuditEntry) MarshalJSON() ([]byte, error) {
	j := auditEntryJSON{ID: e.ID, At: Time(e.At), Action: e.Action,
		Actor:   auditActorJSON{Type: e.Actor.Type, ID: e.Actor.ID},
		Target:  auditTargetJSON{Type: e.Target.Type, Name: e.Target.Name},
		Changes: e.Changes, RequestID: e.RequestID, ClientAddress: e.ClientAddress}
	switch e.Actor.Type {
	case ActorUser:
		j.Actor.Email = e.Actor.Label
	case ActorKey:
		j.Actor.Prefix = e.Actor.Label
	case ActorCLI:
		j.Actor.Name = e.Actor.Label
	}
	if e.Target.ID != uuid.Nil {
		id := e.Target.ID
		j.Target.ID = &id
	}
	if j.Changes == nil {
		j.Changes = map[string]AuditChange{}
	}
	return json.Marshal(j)
}

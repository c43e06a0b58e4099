package opencloud

import (
	"encoding/json"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// MaxMessage is the platform's limit on a published message, in bytes
// (so also in characters).
const MaxMessage = 1024

// message is what a game server receives on the topic: enough of the
// command to act on it at once. Sync stays the source of truth: a server
// that receives a message still takes the command by syncing, and
// acknowledges it there.
type message struct {
	ID              uuid.UUID              `json:"id"`
	Type            gatehouse.CommandType  `json:"type"`
	AccessPointID   uuid.UUID              `json:"accessPointId"`
	Scope           gatehouse.CommandScope `json:"scope"`
	ServerJobID     *string                `json:"serverJobId"`
	PlatformUserID  *string                `json:"platformUserId"`
	DurationSeconds int                    `json:"durationSeconds"`
	ExpiresAt       gatehouse.Time         `json:"expiresAt"`
}

// core is the message reduced to what names the command: what is sent
// when the whole one would pass MaxMessage (it cannot with today's
// bounds on job ids, but the platform would refuse it whole).
type core struct {
	ID            uuid.UUID              `json:"id"`
	Type          gatehouse.CommandType  `json:"type"`
	AccessPointID uuid.UUID              `json:"accessPointId"`
	Scope         gatehouse.CommandScope `json:"scope"`
}

// Message returns the compact JSON published for c, at most MaxMessage
// bytes: the whole message, or its core when the whole is longer. ok is
// false when even the core is longer (never, with today's fields).
func Message(c gatehouse.Command) (string, bool) {
	b, _ := json.Marshal(message{ID: c.ID, Type: c.Type, AccessPointID: c.AccessPoint.ID, Scope: c.Scope,
		ServerJobID: c.ServerJobID, PlatformUserID: c.PlatformUserID,
		DurationSeconds: c.DurationSeconds, ExpiresAt: c.ExpiresAt})
	if len(b) <= MaxMessage {
		return string(b), true
	}
	b, _ = json.Marshal(core{ID: c.ID, Type: c.Type, AccessPointID: c.AccessPoint.ID, Scope: c.Scope})
	return string(b), len(b) <= MaxMessage
}

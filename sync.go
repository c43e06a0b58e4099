package gatehouse

import (
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Limits of a game server's sync (see docs/api.md, "POST
// /servers/{serverJobId}/sync").
const (
	// LiveWindow: a server is live while it synced this recently.
	LiveWindow = 60 * time.Second
	// MaxSyncWait bounds waitSeconds; DefaultSyncWait is used when the
	// body leaves it out.
	MaxSyncWait     = 30
	DefaultSyncWait = 25
	// MaxServerPlayers bounds the players a server reports; the
	// platform's largest servers hold 700.
	MaxServerPlayers = 1000
	// MaxSyncAcks bounds the acknowledgements of one sync.
	MaxSyncAcks = 100
	// MaxAckDetail bounds a server's failure message.
	MaxAckDetail = 200
	// MaxSyncCommands bounds the commands of one sync answer; the rest
	// come with the next.
	MaxSyncCommands = 50
	// MaxSyncCursor bounds the cursor a server sends back: generations
	// count answers, and a larger one is not one Gatehouse gave.
	MaxSyncCursor = 1 << 53
	// ServerForgetAfter: a server unseen this long is forgotten.
	ServerForgetAfter = 10 * time.Minute
	// MaxOrgServers bounds the servers an organization holds (those
	// seen within ServerForgetAfter), and MaxOrgPlayers the players
	// their lists hold in all (OrgServerCaps).
	MaxOrgServers = 10_000
	MaxOrgPlayers = 250_000
)

// ServerCaps bound what an organization's game servers hold
// (Store.Heartbeat): how many servers, and how many players on them in
// all.
type ServerCaps struct {
	Servers, Players int
}

// OrgServerCaps are the caps of every organization: far above a
// studio's largest game, they bound what a key inventing job ids can
// store. A new server past either is refused (ErrTooManyServers); a
// server already held keeps syncing, and a list that grows past the
// players' cap keeps the players that fit.
var OrgServerCaps = ServerCaps{Servers: MaxOrgServers, Players: MaxOrgPlayers}

// TakeRequest is one server's request of Store.TakeCommandsBatch: its
// job id and the cursor it sent back (0 for none).
type TakeRequest struct {
	JobID  string
	Cursor int64
}

// Taken answers a TakeRequest: the commands due, oldest first, and the
// cursor to send back.
type Taken struct {
	Commands []Command
	Cursor   int64
}

// SyncRequest is one call of a game server's loop: a heartbeat, its
// acknowledgements and a long poll at once.
type SyncRequest struct {
	ServerJobID string   `json:"-"`
	UniverseID  string   `json:"universeId"`
	PlaceID     *string  `json:"placeId"`
	Players     []string `json:"players"`
	Acks        []Ack    `json:"acks"`
	Cursor      *string  `json:"cursor"`
	// WaitSeconds is how long to wait for a command (0–30); nil means
	// DefaultSyncWait.
	WaitSeconds *int `json:"waitSeconds"`
}

// Ack is a server's answer to a command it received.
type Ack struct {
	CommandID uuid.UUID `json:"commandId"`
	Result    AckResult `json:"result"`
	Detail    *string   `json:"detail"`
}

// reason is the failure reason an ack gives its command.
func (a Ack) reason() string {
	if a.Detail != nil && *a.Detail != "" {
		return *a.Detail
	}
	return "FAILED_ON_SERVER"
}

// Check validates r and returns it with its cursor read, or a
// *ValidationError naming every bad field.
func (r SyncRequest) Check() (SyncRequest, int64, time.Duration, error) {
	var errs ValidationError
	checkJobID(&errs, "serverJobId", r.ServerJobID)
	if !IsUniverseID(r.UniverseID) {
		errs.Add("universeId", "must be a positive integer, as a string")
	}
	r.PlaceID = blankToNil(r.PlaceID)
	if r.PlaceID != nil && !isPositiveInteger(*r.PlaceID) {
		errs.Add("placeId", "must be a positive integer, as a string")
	}
	if len(r.Players) > MaxServerPlayers {
		errs.Add("players", "must list at most %d players", MaxServerPlayers)
	}
	for i, p := range r.Players {
		if !IsPlatformUserID(p) {
			errs.Add("players["+strconv.Itoa(i)+"]", "must be a platform user id (digits)")
			break
		}
	}
	if len(r.Acks) > MaxSyncAcks {
		errs.Add("acks", "must hold at most %d acknowledgements", MaxSyncAcks)
	}
	for i, a := range r.Acks {
		field := "acks[" + strconv.Itoa(i) + "]"
		if a.CommandID == uuid.Nil {
			errs.Add(field+".commandId", "is required")
		}
		if a.Result != AckExecuted && a.Result != AckFailed {
			errs.Add(field+".result", "must be EXECUTED or FAILED")
		}
		if a.Detail != nil && (utf8.RuneCountInString(*a.Detail) > MaxAckDetail || HasUnsafeRune(*a.Detail)) {
			errs.Add(field+".detail", "must be at most %d printable characters", MaxAckDetail)
		}
	}
	var cursor int64
	if r.Cursor != nil && *r.Cursor != "" {
		n, err := strconv.ParseInt(*r.Cursor, 10, 64)
		if err != nil || n < 0 || n > MaxSyncCursor {
			errs.Add("cursor", "must be the cursor of the previous answer, or null")
		}
		cursor = n
	}
	wait := DefaultSyncWait
	if r.WaitSeconds != nil {
		wait = *r.WaitSeconds
	}
	if wait < 0 || wait > MaxSyncWait {
		errs.Add("waitSeconds", "must be between 0 and %d", MaxSyncWait)
	}
	return r, cursor, time.Duration(wait) * time.Second, errs.Err()
}

// SyncResult is the answer of a sync: the commands the server has not
// received yet (or whose delivery it did not confirm by sending back the
// cursor), and the cursor to send next.
type SyncResult struct {
	Commands      []Command `json:"commands"`
	Cursor        string    `json:"cursor"`
	PolicyVersion string    `json:"policyVersion"`
	// RejectedAcks lists the acknowledgements that matched no command
	// delivered to this server (unknown, another organization's, or
	// already answered): they changed nothing.
	RejectedAcks []uuid.UUID `json:"rejectedAcks"`
	// Grants are the grants of the players the sync listed that are not
	// revoked and end after now (running, or starting later): at most
	// MaxSyncGrants, those that end soonest first. The list is complete
	// each time: the server keeps it instead of the one it had.
	Grants []Grant `json:"grants"`
}

// GameServer is a game server as its syncs describe it.
type GameServer struct {
	JobID      string
	UniverseID string
	PlaceID    *string
	Players    []string
	SeenAt     time.Time
	StartedAt  time.Time
}

// FormatCursor writes a sync cursor.
func FormatCursor(gen int64) string { return strconv.FormatInt(gen, 10) }

package client

import (
	"context"
	"net/url"
)

// SyncRequest is one call of a game server's loop: a heartbeat (the
// server's universe and players), the answers to commands it received,
// and a long poll.
type SyncRequest struct {
	UniverseID string   `json:"universeId"`
	PlaceID    string   `json:"placeId,omitempty"`
	Players    []string `json:"players"` // platform user ids on the server now
	Acks       []Ack    `json:"acks,omitempty"`
	// Cursor is the Cursor of the previous answer ("" on the first sync):
	// commands of an answer whose cursor is not sent back come again.
	Cursor string `json:"cursor,omitempty"`
	// WaitSeconds is how long the server may wait for a command (0–30);
	// nil is the server's default, 25.
	WaitSeconds *int `json:"waitSeconds,omitempty"`
}

// Ack is a game server's answer to a command it received.
type Ack struct {
	CommandID string `json:"commandId"`
	Result    string `json:"result"`           // EXECUTED or FAILED
	Detail    string `json:"detail,omitempty"` // with FAILED: why
}

// SyncResult is the answer of a sync.
type SyncResult struct {
	// Commands are due to this server, each with RemainingSeconds; a
	// cancelled one comes again with Status CANCELLED. Drop ids already
	// applied.
	Commands []Command `json:"commands"`
	Cursor   string    `json:"cursor"` // send it with the next sync
	// PolicyVersion is the version of the universe's policy set: when it
	// is not the Version of the set the server holds, fetch it again
	// (PolicySet with the version held answers not modified otherwise).
	PolicyVersion string `json:"policyVersion"`
	// RejectedAcks are the acks that matched no command delivered to this
	// server; they changed nothing.
	RejectedAcks []string `json:"rejectedAcks"`
	// Grants are every grant of the players listed that is not revoked
	// and ends after now (at most 2,000, those that end soonest first):
	// the complete list, to keep instead of the one held.
	Grants []Grant `json:"grants"`
}

// Sync is one call of a game server's loop (a key with the server
// scope): it reports the server live, applies its acks, and answers as
// soon as a command for the server exists, or after WaitSeconds with
// none. Give the client's HTTP client a timeout above the wait (30 s at
// most). A 429 (60 syncs a minute per server and key) is waited out
// like any other.
func (c *Client) Sync(ctx context.Context, serverJobID string, r SyncRequest) (*SyncResult, error) {
	if r.Players == nil {
		r.Players = []string{}
	}
	var out SyncResult
	if err := c.do(ctx, "POST", "/api/consumer/v1/servers/"+url.PathEscape(serverJobID)+"/sync", nil, r, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

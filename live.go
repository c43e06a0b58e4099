package gatehouse

import (
	"time"

	"github.com/google/uuid"
)

// MaxLiveServers bounds the game servers a live view lists, the most
// crowded first; ServerCount says how many there are in all.
const MaxLiveServers = 200

// LocationLive is a location as an operator watches it now
// (docs/api.md, "GET /locations/{id}/live"): the state of each of its
// access points and the game servers live in its universe.
type LocationLive struct {
	ID         uuid.UUID `json:"id"`
	Name       string    `json:"name"`
	UniverseID *string   `json:"universeId"`
	// At is the instant the view describes.
	At           Time              `json:"at"`
	AccessPoints []LiveAccessPoint `json:"accessPoints"`
	// Servers are the servers of the universe seen syncing within
	// [LiveWindow], the most players first, at most [MaxLiveServers];
	// none without a universe.
	Servers     []LiveServer `json:"servers"`
	ServerCount int          `json:"serverCount"`
}

// LiveAccessPoint is one access point's state at the live view's instant.
type LiveAccessPoint struct {
	ID   uuid.UUID `json:"id"`
	Name string    `json:"name"`
	// Mode is its policy's, nil when it has none (it fails closed).
	Mode *PolicyMode `json:"mode"`
	// Unlocks are the remote unlocks in force: for the universe, one
	// server or one player.
	Unlocks []ActiveUnlock `json:"unlocks"`
	// Lockdown is the lockdown that covers it, nil when none does: it
	// denies everyone, whatever the unlocks.
	Lockdown *ActiveSpan `json:"lockdown"`
}

// LiveServer is a game server as its last sync described it.
type LiveServer struct {
	JobID     string  `json:"jobId"`
	PlaceID   *string `json:"placeId"`
	Players   int     `json:"players"`
	StartedAt Time    `json:"startedAt"`
	SeenAt    Time    `json:"seenAt"`
}

// runs reports whether the unlock is in force at the instant: issued by
// then and not ended.
func (u ActiveUnlock) runs(at time.Time) bool {
	return time.Time(u.Until).After(at) && !time.Time(u.From).After(at)
}

// InForce returns, of an access point's unlocks and lockdowns, those in
// force at the instant, as a decision then counts them: unlocks
// (never nil) and the lockdown that runs, nil when none does.
func InForce(unlocks []ActiveUnlock, lockdowns []ActiveSpan, at time.Time) ([]ActiveUnlock, *ActiveSpan) {
	running := []ActiveUnlock{}
	for _, u := range unlocks {
		if u.runs(at) {
			running = append(running, u)
		}
	}
	for _, l := range lockdowns {
		if l.covers(at) {
			return running, &l
		}
	}
	return running, nil
}

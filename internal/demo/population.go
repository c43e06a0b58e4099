package demo

import (
	"fmt"
	"math/rand/v2"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// Player is one of the demo's players: their platform user id and what a
// game server would state about them when they try a door.
type Player struct {
	PlatformUserID string
	Attributes     gatehouse.PlayerAttributes
}

// The players the policies name, by their index in Population. Index 0
// is the one seen most (the demo draws players from a Zipf law).
const (
	playerSuspended = 2 // security, kept out of the server room until a month ago
	playerBanned    = 4 // banned from the club and the harbor for good
	playerTimedOut  = 7 // banned from the club for two more weeks
)

// roles are the first players' attributes, so that the rules that name a
// role meet someone who plays often; the others are drawn. It is made anew
// for each population: a caller may change what it is given.
func roles() []gatehouse.PlayerAttributes {
	return []gatehouse.PlayerAttributes{
		{Gamepasses: []string{VIPPass}, Premium: true},     // a regular of the VIP areas
		{Groups: map[string]int{StaffGroup: rankStaff}},    // staff
		{Groups: map[string]int{StaffGroup: rankSecurity}}, // security (playerSuspended)
		{},                             // a visitor
		{Badges: []string{RegularTag}}, // playerBanned, yet a lounge regular
		{Groups: map[string]int{StaffGroup: rankHost}},    // a club host
		{Groups: map[string]int{StaffGroup: rankOwner}},   // the owner
		{Gamepasses: []string{VIPPass}},                   // playerTimedOut
		{Groups: map[string]int{StaffGroup: rankTrainee}}, // a trainee
		{Premium: true, Badges: []string{RegularTag}},     // a Premium regular
		{Groups: map[string]int{StaffGroup: rankStaff}, Premium: true},
	}
}

// populationSize is how many players the demo has.
const populationSize = 60

// Population returns the demo's players, the same on every call: their ids
// (those of every demo since the first) and their attributes, which a test
// uses to decide the demo's attempts again.
func Population() []Player {
	players, _ := population()
	return players
}

// population returns the players and the game servers' job ids.
func population() ([]Player, []string) {
	rng := rand.New(rand.NewPCG(7, 7))
	players := make([]Player, populationSize)
	for i := range players {
		players[i].PlatformUserID = fmt.Sprint(100_000_000 + rng.IntN(4_000_000_000))
	}
	var jobs []string
	for range 6 {
		jobs = append(jobs, uuid.Must(uuid.NewRandomFromReader(rngReader{rng})).String())
	}
	// Attributes come from a generator of their own: the ids above are
	// those of demos made before players had attributes.
	attrs := rand.New(rand.NewPCG(11, 11))
	known := roles()
	for i := range players {
		if i < len(known) {
			players[i].Attributes = known[i]
			continue
		}
		var a gatehouse.PlayerAttributes
		if attrs.Float64() < 0.15 {
			a.Gamepasses = []string{VIPPass}
		}
		if attrs.Float64() < 0.2 {
			a.Premium = true
		}
		if attrs.Float64() < 0.1 {
			a.Badges = []string{RegularTag}
		}
		if attrs.Float64() < 0.1 {
			a.Groups = map[string]int{StaffGroup: []int{rankTrainee, rankStaff, rankStaff, rankHost}[attrs.IntN(4)]}
		}
		players[i].Attributes = a
	}
	return players, jobs
}

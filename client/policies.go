package client

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Policy is the rules of one access point. Evaluation, first match wins:
// an active remote unlock (REMOTE_UNLOCK), Mode LOCKED
// (ACCESS_POINT_DISABLED), a matching Deny (BLOCKED), Mode OPEN (OPEN),
// outside the Schedule (OUTSIDE_SCHEDULE), a matching Allow (ALLOWLIST; an
// empty Allow lets everyone in schedule pass: SCHEDULE), otherwise
// NOT_ON_ALLOWLIST.
type Policy struct {
	Mode     string      `json:"mode"`     // RULES, OPEN or LOCKED
	Schedule *Schedule   `json:"schedule"` // nil: always in schedule
	Allow    []AllowRule `json:"allow"`
	Deny     []DenyRule  `json:"deny"`
	FailMode string      `json:"failMode,omitempty"` // CLOSED (the default) or OPEN
	// Version and UpdatedAt are set by the server (1 for an access
	// point's first policy, one more with every change); SetPolicy
	// ignores them.
	Version   int64      `json:"version,omitempty"`
	UpdatedAt *time.Time `json:"updatedAt,omitempty"`
}

// Schedule is when an access point admits at all, in wall-clock times of
// an IANA time zone, daylight-saving changes included.
type Schedule struct {
	TimeZone   string      `json:"timeZone"` // e.g. Europe/Berlin
	Windows    []Window    `json:"windows"`
	Exceptions []Exception `json:"exceptions"`
}

// Window is a weekly opening: on each of Days (MON … SUN), from From
// (inclusive) to To (exclusive), "HH:MM". A To at or before From crosses
// midnight: the window belongs to the day it starts.
type Window struct {
	Days []string `json:"days"`
	From string   `json:"from"`
	To   string   `json:"to"`
}

// Exception changes one local date (Date, YYYY-MM-DD): Closed, or
// Windows that replace the weekly windows starting that date.
type Exception struct {
	Date    string      `json:"date"`
	Closed  bool        `json:"closed,omitempty"`
	Windows []TimeRange `json:"windows,omitempty"`
}

// TimeRange is a window of an exception: its date gives the day.
type TimeRange struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// AllowRule admits a player: set exactly one criterion. MinRank goes with
// GroupID (default 1: any member).
type AllowRule struct {
	PlatformUserID string `json:"platformUserId,omitempty"`
	GroupID        string `json:"groupId,omitempty"`
	MinRank        *int   `json:"minRank,omitempty"`
	GamepassID     string `json:"gamepassId,omitempty"`
	BadgeID        string `json:"badgeId,omitempty"`
	Premium        bool   `json:"premium,omitempty"`
}

// DenyRule keeps a player out, until Until (exclusive) or, nil, for good.
type DenyRule struct {
	PlatformUserID string     `json:"platformUserId"`
	Until          *time.Time `json:"until,omitempty"`
}

// AccessPointPolicy is one access point of a universe with its policy
// (nil: none yet, and decisions for it deny).
type AccessPointPolicy struct {
	AccessPoint NamedRef `json:"accessPoint"`
	Location    NamedRef `json:"location"`
	Policy      *Policy  `json:"policy"`
}

// PolicySet is every policy of a universe. Version changes whenever
// anything in the set does (and once a year, with the window of Zones);
// sync answers carry it as PolicyVersion.
type PolicySet struct {
	UniverseID   string              `json:"universeId"`
	Version      string              `json:"version"`
	AccessPoints []AccessPointPolicy `json:"accessPoints"`
	// Zones are the UTC offsets of every time zone the schedules name, by
	// IANA name, from January 1 of this year to January 1 of the year
	// after next: what a decider without a time-zone database converts
	// instants with.
	Zones map[string][]ZoneOffset `json:"zones"`
	// Unreadable are the access points whose stored policy the server
	// cannot read, left out of AccessPoints; a PUT of the policy, with
	// If-Match the version named, repairs each.
	Unreadable []UnreadablePolicy `json:"unreadable"`
	// Lockdowns are the lockdowns running that cover an access point of
	// the set: deny every access point they cover with LOCKDOWN, until
	// the earlier of Until and a release.
	Lockdowns []Lockdown `json:"lockdowns"`
}

// UnreadablePolicy names an access point of a set whose current policy
// (of version PolicyVersion) cannot be read.
type UnreadablePolicy struct {
	AccessPoint   NamedRef `json:"accessPoint"`
	Location      NamedRef `json:"location"`
	PolicyVersion int64    `json:"policyVersion"`
}

// ZoneOffset is one period of a time zone: from From until the next
// period's From, local time is UTC plus OffsetSeconds.
type ZoneOffset struct {
	From          time.Time `json:"from"`
	OffsetSeconds int       `json:"offsetSeconds"`
}

// Policy returns an access point's current policy (a key with the
// policies:write scope), or nil when it has none yet. An unknown access
// point (or another organization's) is an *Error with Status 404.
func (c *Client) Policy(ctx context.Context, accessPointID string) (*Policy, error) {
	var p Policy
	err := c.do(ctx, "GET", policyPath(accessPointID), nil, nil, &p)
	var apiErr *Error
	if errors.As(err, &apiErr) && apiErr.Code == "policy_not_found" {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// SetPolicy stores p as the access point's next version and returns it
// as stored. ifVersion, when set, is the version the change replaces: the
// Version of the policy you read, or 0 when the access point had none;
// when another change came first the answer is an *Error with Status 412
// (Code "precondition_failed") and nothing changes. Storing the policy
// the access point has keeps its version. An invalid policy is an *Error
// with Status 400 whose Issues name every problem by path
// (schedule.windows[1].to).
func (c *Client) SetPolicy(ctx context.Context, accessPointID string, p Policy, ifVersion *int64) (*Policy, error) {
	header := http.Header{}
	switch {
	case ifVersion == nil:
	case *ifVersion == 0:
		header.Set("If-None-Match", "*")
	default:
		header.Set("If-Match", `"`+strconv.FormatInt(*ifVersion, 10)+`"`)
	}
	p.Version, p.UpdatedAt = 0, nil
	var out Policy
	if _, _, err := c.exchange(ctx, "PUT", policyPath(accessPointID), nil, header, p, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// PolicySet returns a universe's policy set (a key with the server
// scope). etag is the Version of the set you hold, "" for none: while the
// set is unchanged the answer is notModified with a nil set, and costs the
// server no body.
func (c *Client) PolicySet(ctx context.Context, universeID, etag string) (set *PolicySet, notModified bool, err error) {
	header := http.Header{}
	if etag != "" {
		if !strings.HasPrefix(etag, `"`) && !strings.HasPrefix(etag, `W/"`) {
			etag = `"` + etag + `"`
		}
		header.Set("If-None-Match", etag)
	}
	var out PolicySet
	_, _, err = c.exchange(ctx, "GET", "/api/consumer/v1/policies", url.Values{"universeId": {universeID}}, header, nil, &out)
	var apiErr *Error
	if errors.As(err, &apiErr) && apiErr.Status == http.StatusNotModified {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	return &out, false, nil
}

// DecisionRequest asks whether a player passes an access point.
type DecisionRequest struct {
	AccessPointID  string `json:"accessPointId"`
	PlatformUserID string `json:"platformUserId"`
	// PlatformUserName is the player's display name, recorded with the
	// event (Record).
	PlatformUserName string `json:"platformUserName,omitempty"`
	// ServerJobID is the asking server's job id: a SERVER unlock covers
	// its players.
	ServerJobID string            `json:"serverJobId,omitempty"`
	Attributes  *PlayerAttributes `json:"attributes,omitempty"`
	// Record stores the decision as an ACCESS_GRANTED or ACCESS_DENIED
	// event in the same call (DecisionResult.EventID).
	Record bool `json:"record,omitempty"`
	// At decides at another instant, to explain, by the policy version in
	// force then; not with Record.
	At *time.Time `json:"at,omitempty"`
	// CurrentPolicy decides at At by the current policy instead: a test
	// of today's rules at another instant.
	CurrentPolicy bool `json:"currentPolicy,omitempty"`
}

// PlayerAttributes are what the game server knows of the player.
type PlayerAttributes struct {
	Groups     map[string]int `json:"groups,omitempty"` // group id → rank
	Gamepasses []string       `json:"gamepasses,omitempty"`
	Badges     []string       `json:"badges,omitempty"`
	Premium    bool           `json:"premium,omitempty"`
}

// DecisionResult is a decision and what it was made from.
type DecisionResult struct {
	Allowed string `json:"allowed"` // granted or denied
	Reason  string `json:"reason"`  // e.g. ALLOWLIST, OUTSIDE_SCHEDULE, REMOTE_UNLOCK
	Rule    string `json:"rule"`    // what decided, e.g. allow[1], schedule, remoteUnlock
	// PolicyVersion is nil when the access point has no policy (the
	// decision then denies: ACCESS_POINT_DISABLED, rule failMode).
	PolicyVersion *int64    `json:"policyVersion"`
	EventID       *string   `json:"eventId"` // the recorded event, nil unless Record
	AccessPoint   NamedRef  `json:"accessPoint"`
	Location      NamedRef  `json:"location"`
	At            time.Time `json:"at"`
}

// Decide asks Gatehouse whether a player passes (a key with the server
// scope), by the access point's policy and its active remote unlocks.
// Another organization's access point is an *Error with Status 404. A
// 429 or 503 is waited out and the request sent again; a recorded
// decision refused that way was not recorded.
func (c *Client) Decide(ctx context.Context, r DecisionRequest) (*DecisionResult, error) {
	var out DecisionResult
	if err := c.do(ctx, "POST", "/api/consumer/v1/decisions", nil, r, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

func policyPath(accessPointID string) string {
	return "/api/consumer/v1/access-points/" + url.PathEscape(accessPointID) + "/policy"
}

package gatehouse

import (
	"encoding/json"
	"strconv"

	"github.com/google/uuid"
)

// The fields of a policy's JSON at each level. version and updatedAt are
// the store's: they are accepted and ignored, so that a policy read can be
// sent back as it is (conditional writes use If-Match).
var (
	policyFields    = []string{"mode", "schedule", "allow", "deny", "failMode", "version", "updatedAt"}
	scheduleFields  = []string{"timeZone", "windows", "exceptions"}
	windowFields    = []string{"days", "from", "to"}
	exceptionFields = []string{"date", "closed", "windows"}
	rangeFields     = []string{"from", "to"}
	allowFields     = []string{"platformUserId", "groupId", "minRank", "gamepassId", "badgeId", "premium"}
	denyFields      = []string{"platformUserId", "until"}
)

// policyJSON is a policy as sent: the nested values are read strictly in
// turn, so that an unknown or mistyped field is reported under its path
// (allow[3].minRank), not under the list that holds it.
type policyJSON struct {
	Mode      PolicyMode        `json:"mode"`
	Schedule  json.RawMessage   `json:"schedule"`
	Allow     []json.RawMessage `json:"allow"`
	Deny      []json.RawMessage `json:"deny"`
	FailMode  FailMode          `json:"failMode"`
	Version   json.RawMessage   `json:"version"`
	UpdatedAt json.RawMessage   `json:"updatedAt"`
}

type scheduleJSON struct {
	TimeZone   string            `json:"timeZone"`
	Windows    []json.RawMessage `json:"windows"`
	Exceptions []json.RawMessage `json:"exceptions"`
}

type exceptionJSON struct {
	Date    string            `json:"date"`
	Closed  bool              `json:"closed"`
	Windows []json.RawMessage `json:"windows"`
}

type denyJSON struct {
	PlatformUserID string  `json:"platformUserId"`
	Until          *string `json:"until"`
}

// DecodePolicy reads a policy's JSON strictly and checks it, reporting
// every problem at once keyed by field path, e.g. schedule.windows[1].to.
func DecodePolicy(data []byte) (Policy, error) {
	var (
		errs ValidationError
		body policyJSON
		p    Policy
	)
	_, err := DecodeFields(data, &body, policyFields)
	errs.Absorb("", err)
	p.Mode, p.FailMode = body.Mode, body.FailMode
	if isJSONValue(body.Schedule) {
		var s scheduleJSON
		_, err := DecodeFields(body.Schedule, &s, scheduleFields)
		errs.Absorb("schedule", err)
		sched := Schedule{TimeZone: s.TimeZone}
		for i, raw := range s.Windows {
			var w Window
			_, err := DecodeFields(raw, &w, windowFields)
			errs.Absorb("schedule.windows["+strconv.Itoa(i)+"]", err)
			sched.Windows = append(sched.Windows, w)
		}
		for i, raw := range s.Exceptions {
			field := "schedule.exceptions[" + strconv.Itoa(i) + "]"
			var ej exceptionJSON
			_, err := DecodeFields(raw, &ej, exceptionFields)
			errs.Absorb(field, err)
			e := Exception{Date: ej.Date, Closed: ej.Closed}
			for j, raw := range ej.Windows {
				var r TimeRange
				_, err := DecodeFields(raw, &r, rangeFields)
				errs.Absorb(field+".windows["+strconv.Itoa(j)+"]", err)
				e.Windows = append(e.Windows, r)
			}
			sched.Exceptions = append(sched.Exceptions, e)
		}
		p.Schedule = &sched
	}
	for i, raw := range body.Allow {
		field := "allow[" + strconv.Itoa(i) + "]"
		var a AllowRule
		_, err := DecodeFields(raw, &a, allowFields)
		errs.Absorb(field, err)
		// An id refused as it was read (a number, say) still gives the
		// rule its kind: a group's minRank is checked as its rank, not
		// called a rank without a group. Its stand-in fails the id's own
		// check, whose repeat of the problem is left out.
		for _, id := range []struct {
			name string
			v    *string
		}{{"platformUserId", &a.PlatformUserID}, {"groupId", &a.GroupID}, {"gamepassId", &a.GamepassID}, {"badgeId", &a.BadgeID}} {
			if *id.v == "" && errs.Reported(field+"."+id.name) {
				*id.v = "?"
			}
		}
		p.Allow = append(p.Allow, a)
	}
	for i, raw := range body.Deny {
		field := "deny[" + strconv.Itoa(i) + "]"
		var dj denyJSON
		_, err := DecodeFields(raw, &dj, denyFields)
		errs.Absorb(field, err)
		d := DenyRule{PlatformUserID: dj.PlatformUserID}
		if dj.Until != nil {
			if t, err := ParseTime(*dj.Until); err == nil {
				until := Time(t)
				d.Until = &until
			} else if !errs.Reported(field + ".until") {
				errs.Add(field+".until", instantRule, "2026-12-01T00:00:00Z")
			}
		}
		p.Deny = append(p.Deny, d)
	}
	checked, err := p.Check()
	errs.Absorb("", err)
	if err := errs.Err(); err != nil {
		return Policy{}, err
	}
	return checked, nil
}

// isJSONValue reports whether raw was sent and is not null.
func isJSONValue(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}

// instantRule is what an instant of a policy or a decision must be: what
// ParseTime reads, the rule of every instant Gatehouse accepts. An instant
// past year 9999 in UTC would be stored, then fail to read back.
const instantRule = "must be an RFC 3339 instant with an offset, e.g. %s, from year 0000 to 9999 in UTC"

var (
	decisionFields   = []string{"accessPointId", "platformUserId", "serverJobId", "attributes", "record", "at", "currentPolicy", "platformUserName"}
	attributesFields = []string{"groups", "gamepasses", "badges", "premium"}
)

// decisionJSON is a decision request as sent; attributes are read
// strictly in turn and at is read here, so that their problems are
// reported under their own field.
type decisionJSON struct {
	AccessPointID    uuid.UUID       `json:"accessPointId"`
	PlatformUserID   string          `json:"platformUserId"`
	PlatformUserName *string         `json:"platformUserName"`
	ServerJobID      string          `json:"serverJobId"`
	Attributes       json.RawMessage `json:"attributes"`
	Record           bool            `json:"record"`
	At               *string         `json:"at"`
	CurrentPolicy    bool            `json:"currentPolicy"`
}

// DecodeDecisionRequest reads a decision request strictly and checks it,
// reporting every problem at once keyed by field (attributes.groups.456,
// at).
func DecodeDecisionRequest(data []byte) (DecisionRequest, error) {
	var (
		req  DecisionRequest
		errs ValidationError
		body decisionJSON
	)
	_, err := DecodeFields(data, &body, decisionFields)
	errs.Absorb("", err)
	req.AccessPointID, req.PlatformUserID, req.ServerJobID, req.Record = body.AccessPointID, body.PlatformUserID, body.ServerJobID, body.Record
	req.CurrentPolicy = body.CurrentPolicy
	if body.PlatformUserName != nil {
		name, err := CheckPlayerName("platformUserName", *body.PlatformUserName)
		errs.Absorb("", err)
		req.PlatformUserName = name
	}
	if isJSONValue(body.Attributes) {
		req.Attributes, err = DecodeAttributes(body.Attributes)
		errs.Absorb("attributes", err)
	}
	if body.At != nil {
		if t, err := ParseTime(*body.At); err == nil {
			at := Time(t)
			req.At = &at
		} else if !errs.Reported("at") {
			errs.Add("at", instantRule, "2026-11-20T23:30:00Z")
		}
	}
	errs.Absorb("", req.Check())
	return req, errs.Err()
}

// DecodeAttributes reads what a game server states of a player strictly:
// unknown, repeated and mistyped fields are reported by name. Their
// values are checked with the rest of a request (DecisionInput.Check).
func DecodeAttributes(data []byte) (PlayerAttributes, error) {
	var a PlayerAttributes
	_, err := DecodeFields(data, &a, attributesFields)
	return a, err
}

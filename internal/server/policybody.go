package server

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/gatehouse/gatehouse"
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
	Mode      gatehouse.PolicyMode `json:"mode"`
	Schedule  json.RawMessage      `json:"schedule"`
	Allow     []json.RawMessage    `json:"allow"`
	Deny      []json.RawMessage    `json:"deny"`
	FailMode  gatehouse.FailMode   `json:"failMode"`
	Version   json.RawMessage      `json:"version"`
	UpdatedAt json.RawMessage      `json:"updatedAt"`
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

// decodePolicy reads a policy's JSON strictly and checks it, reporting
// every problem at once keyed by field path, e.g. schedule.windows[1].to.
func decodePolicy(data []byte) (gatehouse.Policy, error) {
	var (
		errs gatehouse.ValidationError
		body policyJSON
		p    gatehouse.Policy
	)
	_, err := gatehouse.DecodeFields(data, &body, policyFields)
	mergeIssues(&errs, "", err)
	p.Mode, p.FailMode = body.Mode, body.FailMode
	if isJSONValue(body.Schedule) {
		var s scheduleJSON
		_, err := gatehouse.DecodeFields(body.Schedule, &s, scheduleFields)
		mergeIssues(&errs, "schedule", err)
		sched := gatehouse.Schedule{TimeZone: s.TimeZone}
		for i, raw := range s.Windows {
			var w gatehouse.Window
			_, err := gatehouse.DecodeFields(raw, &w, windowFields)
			mergeIssues(&errs, "schedule.windows["+strconv.Itoa(i)+"]", err)
			sched.Windows = append(sched.Windows, w)
		}
		for i, raw := range s.Exceptions {
			field := "schedule.exceptions[" + strconv.Itoa(i) + "]"
			var ej exceptionJSON
			_, err := gatehouse.DecodeFields(raw, &ej, exceptionFields)
			mergeIssues(&errs, field, err)
			e := gatehouse.Exception{Date: ej.Date, Closed: ej.Closed}
			for j, raw := range ej.Windows {
				var r gatehouse.TimeRange
				_, err := gatehouse.DecodeFields(raw, &r, rangeFields)
				mergeIssues(&errs, field+".windows["+strconv.Itoa(j)+"]", err)
				e.Windows = append(e.Windows, r)
			}
			sched.Exceptions = append(sched.Exceptions, e)
		}
		p.Schedule = &sched
	}
	for i, raw := range body.Allow {
		var a gatehouse.AllowRule
		_, err := gatehouse.DecodeFields(raw, &a, allowFields)
		mergeIssues(&errs, "allow["+strconv.Itoa(i)+"]", err)
		p.Allow = append(p.Allow, a)
	}
	for i, raw := range body.Deny {
		field := "deny[" + strconv.Itoa(i) + "]"
		var dj denyJSON
		_, err := gatehouse.DecodeFields(raw, &dj, denyFields)
		mergeIssues(&errs, field, err)
		d := gatehouse.DenyRule{PlatformUserID: dj.PlatformUserID}
		if dj.Until != nil {
			if t, ok := parseInstant(*dj.Until); ok {
				d.Until = &t
			} else if !reported(&errs, field+".until") {
				errs.Add(field+".until", "must be an RFC 3339 instant with an offset, e.g. 2026-12-01T00:00:00Z")
			}
		}
		p.Deny = append(p.Deny, d)
	}
	checked, err := p.Check()
	mergeIssues(&errs, "", err)
	if err := errs.Err(); err != nil {
		return gatehouse.Policy{}, err
	}
	return checked, nil
}

// isJSONValue reports whether raw was sent and is not null.
func isJSONValue(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}

// parseInstant reads an RFC 3339 instant with its offset.
func parseInstant(s string) (gatehouse.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return gatehouse.Time{}, false
	}
	return gatehouse.Time(t.UTC()), true
}

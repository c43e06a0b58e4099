package gatehouse

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"slices"
	"time"

	"github.com/google/uuid"
)

// MaxFuture is how far ahead of the server clock an event may be dated, to
// absorb clock skew on game servers without accepting garbage dates.
const MaxFuture = time.Hour

// EarliestEvent is the earliest instant an ingest object may carry (its
// occurredAt and its command's issuedAt): no game server sent an access
// event before 2000, so an earlier date is a bug or a zero value (such as
// 1970-01-01 or 0001-01-01) that would sort below every real event.
var EarliestEvent = time.Date(2000, time.January, 1, 0, 0, 0, 0, time.UTC)

// NewEvent is a validated event to store. Its ID is always set: taken from
// the input, or a fresh UUIDv7.
type NewEvent struct {
	ID             uuid.UUID
	Type           EventType
	OccurredAt     time.Time
	AccessPointID  uuid.UUID
	Allowed        *Outcome
	Reason         *string
	PlatformUserID *string
	// PlatformUserName is the display name the game server saw the player
	// under, when it said ([CheckPlayerName]). It is no part of what an
	// event is: DeriveEventID leaves it out (omitempty keeps the encoding
	// of the events before it).
	PlatformUserName *string `json:",omitempty"`
	ServerJobID      *string
	Scope            *CommandScope
	RequestedBy      *uuid.UUID // a dashboard user of the organization
	Command          *NewCommand
}

// NewCommand is the state of a remote command reported with an event. The
// store creates the command on first sight and later moves its status to the
// one reported by the latest event (by occurredAt).
type NewCommand struct {
	ID             uuid.UUID
	Status         CommandStatus
	Scope          CommandScope
	ServerJobID    *string
	PlatformUserID *string
	IssuedAt       time.Time
}

// IngestResult says what a batch stored: Accepted new events, Duplicates of
// events already stored (by id), and every event's id in input order.
type IngestResult struct {
	Accepted   int         `json:"accepted"`
	Duplicates int         `json:"duplicates"`
	IDs        []uuid.UUID `json:"ids"`
}

var ingestFields = []string{
	"id", "type", "occurredAt", "accessPointId", "allowed", "reason",
	"platformUserId", "platformUserName", "serverJobId", "scope", "requestedBy", "command",
}

var commandFields = []string{"id", "status", "scope", "serverJobId", "platformUserId", "issuedAt"}

// DecodeIngestEvent reads one ingest object (an NDJSON line or an element of
// a POST body) and checks it against the ingest rules. now bounds
// occurredAt. Every problem is reported at once in a *ValidationError keyed
// by field name; whether the access point and requester belong to the
// organization is checked by the store.
func DecodeIngestEvent(data []byte, now time.Time) (NewEvent, error) {
	ev, _, err := decodeIngestEvent(data, now, nil)
	return ev, err
}

// decodeIngestEvent is DecodeIngestEvent that also says whether the
// object carried its id (else ev.ID is a new UUIDv7). With names, it also
// reads the whole event's shape an export writes (see
// [DecodeImportEvent]) and fills names from it.
func decodeIngestEvent(data []byte, now time.Time, names *ImportNames) (ev NewEvent, idGiven bool, err error) {
	var errs ValidationError
	known := ingestFields
	if names != nil {
		known = importFields
	}
	obj, ok := decodeObject(&errs, data, known)
	if !ok {
		return ev, false, errs.Err()
	}
	var whole wholeEvent
	if names != nil {
		whole = readWholeEvent(&errs, obj, names)
	}
	r := fieldReader{errs: &errs, obj: obj}

	ev.ID = NewID()
	if id := r.uuid("id", false); id != nil {
		ev.ID, idGiven = *id, true
	}
	typ := EventType(r.str("type", true))
	if typ != "" && !slices.Contains(EventTypes, typ) {
		errs.Add("type", "must be ACCESS_GRANTED, ACCESS_DENIED or REMOTE_UNLOCK")
	}
	ev.Type = typ
	if t := r.time("occurredAt", true); t != nil {
		if t.After(now.Add(MaxFuture)) {
			errs.Add("occurredAt", "must not be more than %s in the future", MaxFuture)
		}
		ev.OccurredAt = *t
	}
	if id := r.uuid("accessPointId", !whole.accessPoint); id != nil {
		ev.AccessPointID = *id
	}
	if whole.accessPointID != nil {
		ev.AccessPointID = *whole.accessPointID
	}
	if s := r.optStr("allowed"); s != nil {
		if o := Outcome(*s); o == Granted || o == Denied {
			ev.Allowed = &o
		} else {
			errs.Add("allowed", "must be granted or denied")
		}
	}
	if s := r.optStr("reason"); s != nil {
		if reasonRE.MatchString(*s) {
			ev.Reason = s
		} else {
			errs.Add("reason", "must match %s, e.g. OUTSIDE_SCHEDULE", ReasonPattern)
		}
	}
	ev.PlatformUserID = r.externalID("platformUserId")
	if name := r.optStr("platformUserName"); name != nil {
		if n, err := CheckPlayerName("platformUserName", *name); err != nil {
			errs.Absorb("", err)
		} else if ev.PlatformUserID == nil && !errs.Reported("platformUserId") {
			errs.Add("platformUserName", "needs platformUserId: it is that player's display name")
		} else {
			ev.PlatformUserName = &n
		}
	}
	ev.ServerJobID = r.externalID("serverJobId")
	ev.Scope = r.commandScope("scope")
	if whole.requester {
		ev.RequestedBy = whole.requestedBy
	} else {
		ev.RequestedBy = r.uuid("requestedBy", false)
	}

	switch typ {
	case EventAccessGranted, EventAccessDenied:
		want := Granted
		if typ == EventAccessDenied {
			want = Denied
		}
		if ev.Allowed == nil {
			ev.Allowed = &want
		} else if *ev.Allowed != want {
			errs.Add("allowed", "must be %s for %s (or omitted)", want, typ)
		}
		if ev.Scope != nil {
			errs.Add("scope", "is only for REMOTE_UNLOCK events")
		}
	case EventRemoteUnlock:
		if _, sent := obj["allowed"]; sent && ev.Allowed != nil {
			errs.Add("allowed", "must be null or omitted for REMOTE_UNLOCK")
		}
		ev.Allowed = nil
		checkScopeTarget(&errs, "", ev.Scope, ev.ServerJobID, ev.PlatformUserID, true)
	}

	if raw, ok := obj["command"]; ok && !isNull(raw) {
		ev.Command = decodeCommand(&errs, raw, ev)
	}
	return ev, idGiven, errs.Err()
}

func decodeCommand(errs *ValidationError, data []byte, ev NewEvent) *NewCommand {
	var sub ValidationError
	obj, ok := decodeObject(&sub, data, commandFields)
	if !ok {
		errs.Merge("command", &sub)
		return nil
	}
	r := fieldReader{errs: &sub, obj: obj}
	c := NewCommand{IssuedAt: ev.OccurredAt}
	if id := r.uuid("id", true); id != nil {
		c.ID = *id
	}
	if s := r.str("status", true); s != "" {
		if slices.Contains(CommandStatuses, CommandStatus(s)) {
			c.Status = CommandStatus(s)
		} else {
			sub.Add("status", "must be PENDING, DELIVERED, EXECUTED, FAILED or EXPIRED")
		}
	}
	scope := r.commandScope("scope")
	if scope == nil {
		scope = ev.Scope
	}
	c.ServerJobID = r.externalID("serverJobId")
	if c.ServerJobID == nil && ev.Type == EventRemoteUnlock {
		c.ServerJobID = ev.ServerJobID
	}
	c.PlatformUserID = r.externalID("platformUserId")
	if c.PlatformUserID == nil && ev.Type == EventRemoteUnlock {
		c.PlatformUserID = ev.PlatformUserID
	}
	if t := r.time("issuedAt", false); t != nil {
		c.IssuedAt = *t
	}
	if scope == nil {
		sub.Add("scope", "is required unless the event is a REMOTE_UNLOCK with a scope")
	} else {
		c.Scope = *scope
		checkScopeTarget(&sub, "", scope, c.ServerJobID, c.PlatformUserID, false)
	}
	errs.Merge("command", &sub)
	return &c
}

// checkScopeTarget checks that a SERVER command names a server job and a
// PLAYER command a platform user.
func checkScopeTarget(errs *ValidationError, prefix string, scope *CommandScope, job, user *string, required bool) {
	switch {
	case scope == nil:
		if required {
			errs.Add(prefix+"scope", "is required for REMOTE_UNLOCK: UNIVERSE, SERVER or PLAYER")
		}
	case *scope == ScopeServer && job == nil:
		errs.Add(prefix+"serverJobId", "is required when scope is SERVER")
	case *scope == ScopePlayer && user == nil:
		errs.Add(prefix+"platformUserId", "is required when scope is PLAYER")
	}
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// fieldReader reads typed fields of a decoded object, recording problems.
type fieldReader struct {
	errs *ValidationError
	obj  map[string]json.RawMessage
}

// optStr returns the string value of name, or nil when absent or null.
func (r fieldReader) optStr(name string) *string {
	raw, ok := r.obj[name]
	if !ok || isNull(raw) {
		return nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		r.errs.Add(name, "must be a string")
		return nil
	}
	return &s
}

func (r fieldReader) str(name string, required bool) string {
	if s := r.optStr(name); s != nil && *s != "" {
		return *s
	}
	if required && len(r.errs.Issues[name]) == 0 {
		r.errs.Add(name, "is required")
	}
	return ""
}

func (r fieldReader) uuid(name string, required bool) *uuid.UUID {
	s := r.str(name, required)
	if s == "" {
		return nil
	}
	return parseUUID(r.errs, name, s)
}

func (r fieldReader) time(name string, required bool) *time.Time {
	s := r.str(name, required)
	if s == "" {
		return nil
	}
	t, err := ParseTime(s)
	switch {
	case err != nil:
		r.errs.Add(name, "must be an RFC 3339 timestamp with an offset, e.g. 2026-11-20T12:34:56.789Z, from year 0000 to 9999 in UTC")
		return nil
	case t.Before(EarliestEvent):
		r.errs.Add(name, "must not be before %s", FormatTime(EarliestEvent))
		return nil
	}
	return &t
}

func (r fieldReader) externalID(name string) *string {
	s := r.optStr(name)
	if s == nil || !CheckText(r.errs, name, *s, MaxExternalID) {
		return nil
	}
	if *s == "" {
		r.errs.Add(name, "must not be empty; omit it or send null")
		return nil
	}
	return s
}

func (r fieldReader) commandScope(name string) *CommandScope {
	s := r.optStr(name)
	if s == nil {
		return nil
	}
	if sc := CommandScope(*s); slices.Contains(CommandScopes, sc) {
		return &sc
	}
	r.errs.Add(name, "must be UNIVERSE, SERVER or PLAYER")
	return nil
}

// importIDNamespace labels the hash of an imported event's derived id, so
// that no other hash of the same bytes makes the same id.
const importIDNamespace = "gatehouse import event id v1\x00"

// DeriveEventID is the id of an imported event whose line has none: a
// UUIDv7 whose time is the event's occurredAt and whose 74 other bits
// are the SHA-256 of the organization and the event's content (every
// field, in a fixed order, after decoding: key order, spacing and
// number forms do not change it). The same line imported twice, in the
// same or another file, is the same event, stored once; two lines that
// differ in anything are two events. Two attempts identical in every
// field (the same player, door, outcome and reason, to the millisecond)
// cannot be told apart, and are one.
func DeriveEventID(orgID uuid.UUID, ev NewEvent) uuid.UUID {
	h := sha256.New()
	h.Write([]byte(importIDNamespace))
	h.Write(orgID[:])
	ev.ID = uuid.Nil
	ev.PlatformUserName = nil           // how the game named the player: the same attempt, whatever the name
	ev.OccurredAt = ev.OccurredAt.UTC() // an instant, whatever offset it was written in
	if ev.Command != nil {
		c := *ev.Command
		c.IssuedAt = c.IssuedAt.UTC()
		ev.Command = &c
	}
	content, _ := json.Marshal(ev) // a struct of plain fields: never fails, fixed order
	h.Write(content)
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	var id uuid.UUID
	ms := uint64(ev.OccurredAt.UnixMilli())
	for i := range 6 {
		id[i] = byte(ms >> (40 - 8*i))
	}
	copy(id[6:], sum[:10])
	id[6] = 0x70 | id[6]&0x0f // version 7
	id[8] = 0x80 | id[8]&0x3f // the RFC 9562 variant
	return id
}

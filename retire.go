package gatehouse

import "fmt"

// Archiving and deleting access points and locations (docs/api.md,
// "Archive and delete"). Archiving is bookkeeping: an archived access
// point or location is hidden from lists (a list asked for archived ones
// shows them, marked by archivedAt), its events stay and are still found,
// and everything a running game relies on goes on: events for it are
// accepted, decisions and the policy set still serve its policy. What it
// refuses are new writes that name it (see [AccessPoint.Writable]) until
// it is restored. Deleting is for a mistake: only a record that nothing
// recorded names can go (see [HistoryError]).

// StateError is an [ErrConflict] that the state of a record causes, not
// a field of the request: a write naming an archived access point or
// location, a delete of one that history names. Message is the whole
// sentence, which says what to do instead.
type StateError struct {
	Message string
}

func (e *StateError) Error() string        { return e.Message }
func (e *StateError) Is(target error) bool { return target == ErrConflict }

// Writable returns nil for an access point in use, and a *[StateError]
// for one that is archived, or whose location is: an archived access
// point takes no new write (a policy change, a remote unlock, a grant, a
// rename or a move) until it is restored. Restoring and deleting it are
// the writes it takes.
func (ap AccessPoint) Writable() error {
	switch {
	case ap.ArchivedAt != nil:
		return &StateError{Message: fmt.Sprintf("access point %q is archived: restore it first", ap.Name)}
	case ap.LocationArchived:
		return &StateError{Message: fmt.Sprintf("the location of access point %q is archived: restore the location first", ap.Name)}
	}
	return nil
}

// Writable returns nil for a location in use, and a *[StateError] for
// an archived one: it takes no new write (a rename, a universe, a new or
// moved access point, a grant or a lockdown of it) until it is restored.
func (l Location) Writable() error {
	if l.ArchivedAt != nil {
		return &StateError{Message: fmt.Sprintf("location %q is archived: restore it first", l.Name)}
	}
	return nil
}

// MaxHistoryCount bounds the count a refused delete reports: a record
// with more events than this is said to have at least that many, so
// that refusing the delete of a busy access point never counts its
// millions of events.
const MaxHistoryCount = 10000

// History is what recorded history names an access point or a location
// (at most [MaxHistoryCount] of each): what refuses its delete.
type History struct {
	Events, Commands, Lockdowns int
	// AccessPoints are the access points under a location.
	AccessPoints int
}

// Deletable returns nil when nothing names the record, and otherwise a
// *[StateError] saying what does and what to do instead: an access point
// or a location that events, remote commands or lockdowns name is
// archived instead; a location with access points is emptied first.
func (h History) Deletable(kind, name string) error {
	count := func(n int, what string) string {
		if n >= MaxHistoryCount {
			return fmt.Sprintf("at least %d %ss", MaxHistoryCount, what)
		}
		if n == 1 {
			return "1 " + what
		}
		return fmt.Sprintf("%d %ss", n, what)
	}
	switch {
	case h.AccessPoints > 0:
		return &StateError{Message: fmt.Sprintf("%s %q has %s: archive it, or delete or move its access points first", kind, name, count(h.AccessPoints, "access point"))}
	case h.Events > 0:
		return &StateError{Message: fmt.Sprintf("%s %q has %s: archive it instead", kind, name, count(h.Events, "event"))}
	case h.Commands > 0:
		return &StateError{Message: fmt.Sprintf("%s %q has %s: archive it instead", kind, name, count(h.Commands, "remote command"))}
	case h.Lockdowns > 0:
		return &StateError{Message: fmt.Sprintf("%s %q has %s: archive it instead", kind, name, count(h.Lockdowns, "lockdown"))}
	}
	return nil
}

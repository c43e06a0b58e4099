package gatehouse

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/google/uuid"
)

// ImportNames are the names an imported line gives beside its ids: those
// of the whole event an export writes (GET /events, the feed, `event
// tail`, the dashboard's NDJSON export). They find the access point and
// the requester in an organization whose ids are not those of the
// export's (another database, a fresh organization); "" when not given.
type ImportNames struct {
	Location       string // location.name
	AccessPoint    string // accessPoint.name
	RequesterEmail string // requestedBy.email
	// Requester says requestedBy was a whole event's {id, email, name}.
	Requester bool
}

// importFields are the fields of an import line: those of ingest, and
// those of the whole event that ingest does not read.
var importFields = append(append([]string{}, ingestFields...), "receivedAt", "location", "accessPoint")

// wholeEvent is what the fields of a whole event that ingest spells
// otherwise said.
type wholeEvent struct {
	accessPoint   bool       // accessPoint was given (instead of accessPointId)
	accessPointID *uuid.UUID // its id, when valid
	requester     bool       // requestedBy was given as an object
	requestedBy   *uuid.UUID // its id, when valid
}

// DecodeImportEvent reads one line of an import at now, as
// [DecodeIngestEvent] does, with two differences:
//   - a line without an id gets the id [DeriveEventID] makes, so that
//     importing a file again stores nothing twice;
//   - the whole event an export writes is read as well as the ingest
//     object: accessPoint {id, name} stands for accessPointId, and
//     requestedBy may be {id, email, name}; location and the names are
//     returned in names for the caller to resolve, and receivedAt, which
//     the server that stores an event sets, is ignored. Its id is kept.
//
// An export line is thereby imported unchanged, and a second import of it
// counts duplicates.
func DecodeImportEvent(orgID uuid.UUID, line []byte, now time.Time) (NewEvent, ImportNames, error) {
	var names ImportNames
	ev, idGiven, err := decodeIngestEvent(line, now, &names)
	if err == nil && !idGiven {
		ev.ID = DeriveEventID(orgID, ev)
	}
	return ev, names, err
}

// readWholeEvent reads the fields of the whole event's shape in obj: the
// access point and location as {id, name}, requestedBy as {id, email,
// name}. receivedAt is the storing server's and is not read.
func readWholeEvent(errs *ValidationError, obj map[string]json.RawMessage, names *ImportNames) wholeEvent {
	var w wholeEvent
	if raw, ok := obj["accessPoint"]; ok {
		w.accessPoint = true
		if _, both := obj["accessPointId"]; both {
			errs.Add("accessPoint", "give accessPointId or accessPoint, not both")
		}
		w.accessPointID, names.AccessPoint = namedRef(errs, "accessPoint", raw, "name", true)
	}
	if raw, ok := obj["location"]; ok && !isNull(raw) {
		_, names.Location = namedRef(errs, "location", raw, "name", false)
	}
	if raw, ok := obj["requestedBy"]; ok && bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
		w.requester, names.Requester = true, true
		w.requestedBy, names.RequesterEmail = namedRef(errs, "requestedBy", raw, "email", true)
	}
	return w
}

// namedRef reads an object {id, name} (or {id, email, name}) at field:
// its id, required when needID, and the text of its field label.
func namedRef(errs *ValidationError, field string, raw json.RawMessage, label string, needID bool) (*uuid.UUID, string) {
	var sub ValidationError
	defer errs.Merge(field, &sub)
	if isNull(raw) {
		if needID {
			sub.Add("", "must be an object with an id")
		}
		return nil, ""
	}
	known := []string{"id", "name"}
	if label != "name" {
		known = append(known, label)
	}
	obj, ok := decodeObject(&sub, raw, known)
	if !ok {
		return nil, ""
	}
	r := fieldReader{errs: &sub, obj: obj}
	var id *uuid.UUID
	if needID {
		id = r.uuid("id", true)
	} else {
		r.optStr("id")
	}
	r.optStr("name")
	text := r.optStr(label)
	if text == nil {
		return id, ""
	}
	return id, *text
}

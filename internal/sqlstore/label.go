package sqlstore

import (
	"errors"
	"slices"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// Label names the store method op (such as "Store.ListEvents") and the ids
// it acted on (the organization first) in *errp, so that the one log line
// of a failure says where it failed:
//
//	Store.ListEvents(0190c1e2-…): sql: database is closed
//
// Every exported method of a store that returns an error defers it:
//
//	defer sqlstore.Label(&err, "Store.ListEvents", orgID)
//
// The label is a *[gatehouse.StoreError], which unwraps to the cause, so
// errors.Is and errors.As see through it. It leaves nil alone and formats
// nothing then: the success path does not allocate. It also leaves the client's errors alone (see [ClientError]): their text
// is what an answer, a form or the command line shows, and stays as it
// was.
func Label(errp *error, op string, ids ...uuid.UUID) {
	if *errp == nil || ClientError(*errp) {
		return
	}
	*errp = &gatehouse.StoreError{Op: op, IDs: slices.Clone(ids), Err: *errp}
}

// clientErrors are the domain's errors that the request made: an answer
// of status 4xx, whose message may quote the error's text.
var clientErrors = []error{
	gatehouse.ErrInvalid, gatehouse.ErrNotFound, gatehouse.ErrConflict, gatehouse.ErrForbidden,
	gatehouse.ErrTooMany, gatehouse.ErrUniverseFull, gatehouse.ErrUniverseTooLarge,
	gatehouse.ErrBadCredentials, gatehouse.ErrChooseOrganization, gatehouse.ErrSecondFactorNeeded, gatehouse.ErrMalformedKey,
	gatehouse.ErrCursorInvalid, gatehouse.ErrCursorMismatch,
}

// ClientError reports whether err is one of the domain's errors that the
// request made (invalid, not found, conflict, forbidden, too many, …),
// which [Label] leaves as it is. What is left to label is what an
// operator reads in the log: unavailable, unreadable, a cancelled or late
// context, and the driver's own errors (a 500).
func ClientError(err error) bool {
	for _, target := range clientErrors {
		if errors.Is(err, target) {
			return true
		}
	}
	var (
		ve *gatehouse.ValidationError
		ce *gatehouse.ConflictError
		se *gatehouse.ScopeError
		ch *gatehouse.ChoiceError
	)
	return errors.As(err, &ve) || errors.As(err, &ce) || errors.As(err, &se) || errors.As(err, &ch)
}

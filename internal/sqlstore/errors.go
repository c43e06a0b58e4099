package sqlstore

import (
	"errors"

	"github.com/gatehouse/gatehouse"
)

// Classified reports whether err is nil or already one of the domain's
// errors (invalid, not found, conflict, unavailable), which a store's
// error mapping passes on as it is; only the driver's own errors are left
// to classify.
func Classified(err error) bool {
	return err == nil || errors.Is(err, gatehouse.ErrInvalid) || errors.Is(err, gatehouse.ErrNotFound) ||
		errors.Is(err, gatehouse.ErrConflict) || errors.Is(err, gatehouse.ErrUnavailable)
}

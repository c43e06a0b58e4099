package gatehouse

import (
	"errors"
	"fmt"
	"maps"
	"slices"
)

// IngestError lists the problems of a batch of ingest objects by the
// index of each event in the batch, so that a door can report them by its
// own numbering (the CLI's line numbers, the API's events[i] paths)
// without reading the messages back. It is an [ErrInvalid], and errors.As
// also finds in it the *[ValidationError] keyed "events[i].field".
type IngestError struct {
	// Events holds each bad event's problems, keyed by field.
	Events map[int]*ValidationError
}

// Add records one problem with field of the event at index i.
func (e *IngestError) Add(i int, field, format string, args ...any) {
	e.event(i).Add(field, format, args...)
}

// Merge records the problems err (a *[ValidationError]) reports for the
// event at index i; any other error is ignored.
func (e *IngestError) Merge(i int, err error) {
	var ve *ValidationError
	if errors.As(err, &ve) {
		e.event(i).Merge("", ve)
	}
}

func (e *IngestError) event(i int) *ValidationError {
	if e.Events == nil {
		e.Events = make(map[int]*ValidationError)
	}
	if e.Events[i] == nil {
		e.Events[i] = &ValidationError{}
	}
	return e.Events[i]
}

// Err returns e when it holds a problem, and nil otherwise.
func (e *IngestError) Err() error {
	if e == nil || len(e.Events) == 0 {
		return nil
	}
	return e
}

// Indexes returns the indexes of the bad events, in order.
func (e *IngestError) Indexes() []int { return slices.Sorted(maps.Keys(e.Events)) }

// Validation returns every problem as one *[ValidationError] keyed
// "events[i].field", the API's issues.
func (e *IngestError) Validation() *ValidationError {
	var all ValidationError
	for _, i := range e.Indexes() {
		all.Merge(fmt.Sprintf("events[%d]", i), e.Events[i])
	}
	return &all
}

// Error lists every problem, as Validation's Error does.
func (e *IngestError) Error() string { return e.Validation().Error() }

// Is reports that an IngestError is an [ErrInvalid].
func (e *IngestError) Is(target error) bool { return target == ErrInvalid }

// As gives errors.As the *[ValidationError] of Validation, so that code
// that reports validation errors reports these too.
func (e *IngestError) As(target any) bool {
	if p, ok := target.(**ValidationError); ok {
		*p = e.Validation()
		return true
	}
	return false
}

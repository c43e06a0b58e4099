package cli

import (
	"errors"
	"strings"

	"github.com/gatehouse/gatehouse"
)

// codeWords are the errors whose text is a code for the API's table of
// statuses rather than words for a person: "conflict", "invalid input".
// Wrapped after a sentence ("…make another user admin first: conflict"),
// they add nothing to it.
var codeWords = []error{gatehouse.ErrConflict, gatehouse.ErrInvalid}

// inWords returns err with its message ending in words: without the
// trailing ": conflict" (or another of codeWords) of an error that wraps
// one after saying what happened. errors.Is and errors.As still see
// through it, so exit statuses do not change.
func inWords(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	for _, code := range codeWords {
		if trimmed, ok := strings.CutSuffix(msg, ": "+code.Error()); ok && trimmed != "" && errors.Is(err, code) {
			return &wordsError{err: err, msg: trimmed}
		}
	}
	return err
}

// wordsError is an error printed as msg.
type wordsError struct {
	err error
	msg string
}

func (e *wordsError) Error() string { return e.msg }
func (e *wordsError) Unwrap() error { return e.err }

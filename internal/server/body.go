package server

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/gatehouse/gatehouse"
)

// readJSON reads a request's JSON body whole, bounded by limit bytes: 415
// unless it is sent as application/json, 413 past the limit, 400 when it
// is not JSON at all. What the JSON holds is the caller's to check.
func readJSON(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return nil, errorf(http.StatusUnsupportedMediaType, "unsupported_media_type", "send the body as Content-Type: application/json")
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, errorf(http.StatusRequestEntityTooLarge, "request_too_large", "the body is over %d bytes", limit)
	case err != nil:
		return nil, err
	case !json.Valid(data):
		return nil, errorf(http.StatusBadRequest, "invalid_json", "the body is not valid JSON")
	}
	return data, nil
}

// mergeIssues adds the issues of err, a *gatehouse.ValidationError, to
// errs under prefix, but for fields that have issues already: a value
// that could not be read is not also reported as missing.
func mergeIssues(errs *gatehouse.ValidationError, prefix string, err error) {
	var ve *gatehouse.ValidationError
	if !errors.As(err, &ve) {
		return
	}
	var fresh gatehouse.ValidationError
	for field, msgs := range ve.Issues {
		path := field
		if prefix != "" {
			path = prefix + "." + field
			if field == "" {
				path = prefix
			}
		}
		if reported(errs, path) {
			continue
		}
		for _, m := range msgs {
			fresh.Add(field, "%s", m)
		}
	}
	errs.Merge(prefix, &fresh)
}

// reported reports whether errs has an issue of path, or of a value
// that holds it (acks[2] for acks[2].result, "" for the whole body).
func reported(errs *gatehouse.ValidationError, path string) bool {
	if errs.Issues[""] != nil {
		return true
	}
	for p := path; ; {
		if errs.Issues[p] != nil {
			return true
		}
		i := strings.LastIndexAny(p, ".[")
		if i <= 0 {
			return false
		}
		p = p[:i]
	}
}

package server

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
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

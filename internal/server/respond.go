package server

import (
	"encoding/json"
	"net/http"
	"net/url"

	"github.com/gatehouse/gatehouse"
)

// parseQuery reads the query string strictly: a malformed pair (a bad
// percent-escape, say) is a 400 rather than silently dropped, which would
// widen the query.
func parseQuery(r *http.Request) (url.Values, error) {
	v, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, errorf(http.StatusBadRequest, "invalid_query",
			"the query string is malformed (percent-encode %%, & and + inside values): %s", gatehouse.Redact(err.Error()))
	}
	return v, nil
}

// writeJSON writes v as the JSON body with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v) // a failed write means the client left; nothing to tell it
}

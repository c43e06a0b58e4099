package server

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"

	"github.com/gatehouse/gatehouse"
)

// Limits of one POST /events request.
const (
	maxIngestBody   = 1 << 20
	maxIngestEvents = 1000
)

// ingestEvents serves POST /api/consumer/v1/events: a batch stored all or
// nothing, idempotent by event id.
func (s *server) ingestEvents() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		events, err := s.decodeIngest(w, r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		res, err := s.Service.IngestEvents(r.Context(), apiKey(r.Context()).OrgID, events)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, res)
	})
}

// decodeIngest reads and checks a whole batch, reporting every problem of
// every event at once, keyed like events[3].occurredAt.
func (s *server) decodeIngest(w http.ResponseWriter, r *http.Request) ([]gatehouse.NewEvent, error) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return nil, errorf(http.StatusUnsupportedMediaType, "unsupported_media_type", "send the body as Content-Type: application/json")
	}
	raws, err := readBatch(http.MaxBytesReader(w, r.Body, maxIngestBody))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, errorf(http.StatusRequestEntityTooLarge, "request_too_large", "the body is over %d bytes; send at most %d events of at most 1 MiB in all", maxIngestBody, maxIngestEvents)
	case errors.Is(err, errTrailingData):
		return nil, errorf(http.StatusBadRequest, "invalid_json", `the body must be one JSON object, {"events": [...]}, with nothing after it`)
	case errors.Is(err, gatehouse.ErrInvalid):
		return nil, err
	case err != nil:
		return nil, errorf(http.StatusBadRequest, "invalid_json", "the body is not valid JSON: %v", err)
	case len(raws) == 0 || len(raws) > maxIngestEvents:
		return nil, gatehouse.Invalid("events", "must hold 1 to %d events", maxIngestEvents)
	}
	return s.Service.DecodeEvents(raws)
}

// errTrailingData: the body goes on after its JSON value.
var errTrailingData = errors.New("data after the JSON value")

// readBatch reads the body {"events": [...]} token by token, keeping each
// event as raw JSON for gatehouse.DecodeIngestEvent, in one pass as cheap
// as decoding into a struct. Unlike encoding/json's Decode it refuses data
// after the value (errTrailingData; Decode stops before a stray "]") and a
// field given twice, where Decode would let the last one win. A body that
// is valid JSON but not that object is a *gatehouse.ValidationError; a
// read error (*http.MaxBytesError) or a syntax error is returned as it is.
func readBatch(body io.Reader) ([]json.RawMessage, error) {
	dec := json.NewDecoder(body)
	var errs gatehouse.ValidationError
	events, err := readBatchObject(dec, &errs)
	if err != nil {
		return nil, err
	}
	var syntax *json.SyntaxError
	switch _, err := dec.Token(); {
	case err == io.EOF:
		return events, errs.Err()
	case err == nil, errors.As(err, &syntax):
		return nil, errTrailingData
	default:
		return nil, err
	}
}

func readBatchObject(dec *json.Decoder, errs *gatehouse.ValidationError) ([]json.RawMessage, error) {
	const shape = `the body is {"events": [...]}`
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('{') {
		errs.Add("events", "must be an array of event objects; %s", shape)
		if d, ok := tok.(json.Delim); ok {
			return nil, skipRest(dec, d)
		}
		return nil, nil
	}
	var (
		events []json.RawMessage
		seen   bool
	)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		switch name, _ := tok.(string); {
		case name != "events":
			errs.Add(name, "is not a known field; %s", shape)
			err = skipValue(dec)
		case seen:
			errs.Add(name, "is given more than once")
			err = skipValue(dec)
		default:
			seen = true
			events, err = readEvents(dec, errs)
		}
		if err != nil {
			return nil, err
		}
	}
	_, err = dec.Token() // the closing brace
	return events, err
}

// readEvents reads the value of "events": an array, each element kept raw.
func readEvents(dec *json.Decoder, errs *gatehouse.ValidationError) ([]json.RawMessage, error) {
	tok, err := dec.Token()
	if err != nil || tok == nil { // null: no events
		return nil, err
	}
	if tok != json.Delim('[') {
		errs.Add("events", "must be an array of event objects")
		if d, ok := tok.(json.Delim); ok {
			return nil, skipRest(dec, d)
		}
		return nil, nil
	}
	var events []json.RawMessage
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		events = append(events, raw)
	}
	_, err = dec.Token() // the closing bracket
	return events, err
}

// skipValue reads the next value whole and drops it.
func skipValue(dec *json.Decoder) error {
	var discard json.RawMessage
	return dec.Decode(&discard)
}

// skipRest reads up to the delimiter that closes open, already read.
func skipRest(dec *json.Decoder, open json.Delim) error {
	for dec.More() {
		if open == '{' {
			if _, err := dec.Token(); err != nil {
				return err
			}
		}
		if err := skipValue(dec); err != nil {
			return err
		}
	}
	_, err := dec.Token()
	return err
}

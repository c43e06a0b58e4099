package gatehouse

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"

	"github.com/google/uuid"
)

// DecodeFields reads data, one JSON object, into v, a pointer to a struct
// whose JSON field names are known. It returns the fields as they were
// sent, so that a caller can tell an omitted field from a null one, or
// read a nested object strictly in turn.
//
// Like an ingest object, it refuses:
//   - anything that is not exactly one object;
//   - a field not in known;
//   - a field given twice;
//   - a value of the wrong type, reported under its field.
//
// Every problem comes at once, in a *[ValidationError] keyed by field
// name.
func DecodeFields(data []byte, v any, known []string) (map[string]json.RawMessage, error) {
	var errs ValidationError
	obj, ok := decodeObject(&errs, data, known)
	if !ok {
		return nil, errs.Err()
	}
	// Every field sent is known and sent once: one pass fills v, and
	// only a value of the wrong type needs the field-by-field pass below
	// to be named (json.Unmarshal stops naming at the first).
	if len(errs.Issues) == 0 && json.Unmarshal(data, v) == nil {
		return obj, nil
	}
	for _, name := range known {
		raw, sent := obj[name]
		if !sent {
			continue
		}
		one, _ := json.Marshal(map[string]json.RawMessage{name: raw})
		if err := json.Unmarshal(one, v); err != nil {
			errs.Add(name, "%s", describeDecodeError(err))
		}
	}
	return obj, errs.Err()
}

// describeDecodeError says what a field's value should have been.
func describeDecodeError(err error) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		// Only a UUID field unmarshals text that can fail.
		return "must be a UUID, e.g. 0193a5b2-7c1e-7d3f-9a4b-5c6d7e8f9a0b"
	}
	t := te.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == reflect.TypeFor[uuid.UUID]():
		return "must be a UUID, e.g. 0193a5b2-7c1e-7d3f-9a4b-5c6d7e8f9a0b"
	case t.Kind() == reflect.String:
		return "must be a string"
	case slices.Contains([]reflect.Kind{reflect.Int, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint32, reflect.Uint64}, t.Kind()):
		return "must be an integer"
	case t.Kind() == reflect.Slice:
		return "must be an array"
	case t.Kind() == reflect.Bool:
		return "must be true or false"
	}
	return "must be a JSON " + t.Kind().String()
}

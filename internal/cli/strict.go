package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/gatehouse/gatehouse"
)

// The JSON the CLI reads from a person (a policy file, --attributes) is
// read strictly, as the API reads bodies: a misspelt field ("minrank",
// "timezone") would otherwise vanish in silence and the policy stored would
// not be the one written. Unlike encoding/json's DisallowUnknownFields,
// which stops at the first problem and names no path, every problem is
// reported at once under its full path (schedule.windows[1].form).

// shapeKind is the kind of JSON value a field takes.
type shapeKind int

const (
	kindString  shapeKind = iota
	kindTime              // a string holding an RFC 3339 instant
	kindBool              // true or false
	kindInteger           // a number without a fraction
	kindObject            // an object with the fields of shape.fields
	kindMap               // an object with any keys, every value of shape.elem
	kindArray             // an array, every element of shape.elem
	kindAny               // anything: a field read and ignored
)

// shape is what a JSON value must be. null is taken for any shape and
// means absent, as encoding/json (and so the API) takes it.
type shape struct {
	kind   shapeKind
	fields map[string]*shape
	elem   *shape
}

var (
	jsonString  = &shape{kind: kindString}
	jsonTime    = &shape{kind: kindTime}
	jsonBool    = &shape{kind: kindBool}
	jsonInteger = &shape{kind: kindInteger}
	jsonAny     = &shape{kind: kindAny}
)

func objectOf(fields map[string]*shape) *shape { return &shape{kind: kindObject, fields: fields} }
func arrayOf(elem *shape) *shape               { return &shape{kind: kindArray, elem: elem} }

// policyShape is gatehouse.Policy as the API takes it. version and
// updatedAt, which policy show --json prints, are taken and ignored, so
// that a policy printed, edited and set again needs no cleaning; the
// version checked against is --if-version's, never the file's.
var policyShape = objectOf(map[string]*shape{
	"mode": jsonString,
	"schedule": objectOf(map[string]*shape{
		"timeZone": jsonString,
		"windows": arrayOf(objectOf(map[string]*shape{
			"days": arrayOf(jsonString),
			"from": jsonString,
			"to":   jsonString,
		})),
		"exceptions": arrayOf(objectOf(map[string]*shape{
			"date":    jsonString,
			"closed":  jsonBool,
			"windows": arrayOf(objectOf(map[string]*shape{"from": jsonString, "to": jsonString})),
		})),
	}),
	"allow": arrayOf(objectOf(map[string]*shape{
		"platformUserId": jsonString,
		"groupId":        jsonString,
		"minRank":        jsonInteger,
		"gamepassId":     jsonString,
		"badgeId":        jsonString,
		"premium":        jsonBool,
	})),
	"deny": arrayOf(objectOf(map[string]*shape{
		"platformUserId": jsonString,
		"until":          jsonTime,
	})),
	"failMode":  jsonString,
	"version":   jsonAny,
	"updatedAt": jsonAny,
})

// attributesShape is gatehouse.PlayerAttributes, what decide's
// --attributes takes.
var attributesShape = objectOf(map[string]*shape{
	"groups":     {kind: kindMap, elem: jsonInteger},
	"gamepasses": arrayOf(jsonString),
	"badges":     arrayOf(jsonString),
	"premium":    jsonBool,
})

// decodeStrict reads data, one JSON value of shape s, into v. It returns
// a *gatehouse.ValidationError naming every field that is unknown, given
// twice or of the wrong type, by path; v is then filled from the fields
// that are right, so that a caller may check the rest of it too (only
// from those: encoding/json alone would also take "minrank" for minRank,
// since it matches names without regard to case).
func decodeStrict(data []byte, s *shape, v any) error {
	var errs gatehouse.ValidationError
	w := &walker{dec: json.NewDecoder(bytes.NewReader(data)), errs: &errs}
	w.dec.UseNumber()
	tok, ok := w.next()
	var clean any
	if ok {
		clean, _ = w.value(tok, s, "")
	}
	if ok && w.err == nil {
		if _, err := w.dec.Token(); !errors.Is(err, io.EOF) {
			errs.Add("", "must be a single JSON value, with nothing after it")
		}
	}
	if w.err != nil {
		return gatehouse.Invalid("", "%s", describeSyntax(data, w.err))
	}
	if err := remarshal(clean, v); err != nil {
		errs.Add("", "%v", err) // not expected, but never silent
	}
	return errs.Err()
}

// remarshal fills v from a value the walk kept.
func remarshal(clean, v any) error {
	data, err := json.Marshal(clean)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// describeSyntax says where data stops being JSON, by line and column.
func describeSyntax(data []byte, err error) string {
	var se *json.SyntaxError
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		if len(bytes.TrimSpace(data)) == 0 {
			return "is empty: give one JSON object"
		}
		return "is not valid JSON: it ends before its last value does"
	}
	if !errors.As(err, &se) {
		return "is not valid JSON: " + err.Error()
	}
	off := min(int(se.Offset), len(data))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(data[:off], '\n') // the byte after the last newline is column 1
	return fmt.Sprintf("is not valid JSON at line %d, column %d: %v", line, col, se)
}

// walker follows a JSON token stream against a shape.
type walker struct {
	dec  *json.Decoder
	errs *gatehouse.ValidationError
	err  error // the first syntax error: the walk stops there
}

// next reads a token; false once the input is not JSON (or ended).
func (w *walker) next() (json.Token, bool) {
	if w.err != nil {
		return nil, false
	}
	tok, err := w.dec.Token()
	if err != nil {
		w.err = err
		return nil, false
	}
	return tok, true
}

// value checks the value that starts with tok against s, and returns it
// as far as it is right (the fields that are, an element that is not as
// null), and whether it is kept at all.
func (w *walker) value(tok json.Token, s *shape, path string) (any, bool) {
	if tok == nil || s.kind == kindAny {
		w.skip(tok)
		return nil, false
	}
	switch s.kind {
	case kindObject, kindMap:
		if tok != json.Delim('{') {
			return w.wrong(tok, s, path)
		}
		obj := map[string]any{}
		seen := map[string]bool{}
		for w.err == nil && w.dec.More() {
			k, _ := w.next()
			key, _ := k.(string)
			field := key
			if path != "" {
				field = path + "." + key
			}
			vt, ok := w.next()
			if !ok {
				return nil, false
			}
			sub := s.elem
			if s.kind == kindObject {
				sub = s.fields[key]
			}
			switch {
			case seen[key]:
				w.errs.Add(field, "is given more than once")
				w.skip(vt)
			case sub == nil:
				w.errs.Add(field, "is not a known field")
				w.skip(vt)
			default:
				if v, keep := w.value(vt, sub, field); keep {
					obj[key] = v
				}
			}
			seen[key] = true
		}
		w.next() // }
		return obj, true
	case kindArray:
		if tok != json.Delim('[') {
			return w.wrong(tok, s, path)
		}
		arr := []any{}
		for i := 0; w.err == nil && w.dec.More(); i++ {
			if vt, ok := w.next(); ok {
				v, _ := w.value(vt, s.elem, path+"["+strconv.Itoa(i)+"]")
				arr = append(arr, v) // null for a wrong one: indexes stay those of the document
			}
		}
		w.next() // ]
		return arr, true
	case kindString:
		if _, ok := tok.(string); !ok {
			return w.wrong(tok, s, path)
		}
	case kindTime:
		if str, ok := tok.(string); !ok {
			return w.wrong(tok, s, path)
		} else if _, err := gatehouse.ParseTime(str); err != nil {
			w.errs.Add(path, "must be an RFC 3339 instant, e.g. 2026-12-31T23:00:00Z")
			return nil, false
		}
	case kindBool:
		if _, ok := tok.(bool); !ok {
			return w.wrong(tok, s, path)
		}
	case kindInteger:
		if n, ok := tok.(json.Number); !ok {
			return w.wrong(tok, s, path)
		} else if _, err := strconv.ParseInt(n.String(), 10, 64); err != nil {
			w.errs.Add(path, "must be an integer")
			return nil, false
		}
	}
	return tok, true
}

// wrong reports a value that is not of its shape's kind, and skips it.
func (w *walker) wrong(tok json.Token, s *shape, path string) (any, bool) {
	w.errs.Add(path, "%s", map[shapeKind]string{
		kindString:  "must be a string",
		kindTime:    "must be a string, an RFC 3339 instant",
		kindBool:    "must be true or false",
		kindInteger: "must be an integer",
		kindObject:  "must be a JSON object",
		kindMap:     "must be a JSON object",
		kindArray:   "must be an array",
	}[s.kind])
	w.skip(tok)
	return nil, false
}

// skip passes over the rest of a value whose first token is tok.
func (w *walker) skip(tok json.Token) {
	if tok != json.Delim('{') && tok != json.Delim('[') {
		return
	}
	for depth := 1; depth > 0; {
		t, ok := w.next()
		if !ok {
			return
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
}

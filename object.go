package gatehouse

import (
	"bytes"
	"encoding/json"
	"slices"
)

// decodeObject splits a JSON object into its fields. It refuses:
//   - anything that is not exactly one object (trailing data, even a
//     stray "]", included), keyed "" (the value itself);
//   - any field not in known;
//   - a field given twice: encoding/json would keep the last silently, so
//     what was checked and what another reader of the same text sees
//     could differ.
//
// The text is checked once with json.Valid; the fields are then found by
// a walk that relies on that check, and each value is a slice of data, so
// the split allocates little more than the map.
func decodeObject(errs *ValidationError, data []byte, known []string) (map[string]json.RawMessage, bool) {
	i := skipSpace(data, 0)
	if !json.Valid(data) || i == len(data) || data[i] != '{' {
		errs.Add("", "must be a single JSON object")
		return nil, false
	}
	obj := make(map[string]json.RawMessage, len(known))
	i = skipSpace(data, i+1)
	for data[i] != '}' {
		end := stringEnd(data, i)
		name := fieldName(data[i:end])
		i = skipSpace(data, skipSpace(data, end)+1) // past the colon
		end = valueEnd(data, i)
		if _, dup := obj[name]; dup {
			errs.Add(name, "is given more than once")
		} else {
			obj[name] = data[i:end:end]
			if !slices.Contains(known, name) {
				errs.Add(name, "is not a known field")
			}
		}
		if i = skipSpace(data, end); data[i] == ',' {
			i = skipSpace(data, i+1)
		}
	}
	return obj, true
}

// The helpers below walk text that json.Valid accepted; on any other text
// their results are meaningless.

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index after the string that starts at data[i].
func stringEnd(data []byte, i int) int {
	for i++; data[i] != '"'; i++ {
		if data[i] == '\\' {
			i++ // the escaped character, a quote perhaps
		}
	}
	return i + 1
}

// valueEnd returns the index after the value that starts at data[i].
func valueEnd(data []byte, i int) int {
	switch data[i] {
	case '"':
		return stringEnd(data, i)
	case '{', '[':
		depth := 0
		for {
			switch data[i] {
			case '"':
				i = stringEnd(data, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
	}
	for ; i < len(data); i++ { // a number, true, false or null
		switch data[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
	}
	return i
}

// fieldName decodes a quoted field name, unescaping only when it has to:
// "typ\u0065" and "type" are the same field.
func fieldName(quoted []byte) string {
	if bytes.IndexByte(quoted, '\\') < 0 {
		return string(quoted[1 : len(quoted)-1])
	}
	var name string
	json.Unmarshal(quoted, &name) // valid JSON: cannot fail
	return name
}

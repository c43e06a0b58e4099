package server

import (
	"net/http"
	"strings"
)

// entityTag is one entity tag of an If-Match or If-None-Match field
// (RFC 9110, section 8.8.3): its opaque tag without the quotes, and
// whether it was sent weak (W/"…").
type entityTag struct {
	opaque string
	weak   bool
}

// etagCondition is a parsed If-Match or If-None-Match field: "*" or a
// list of entity tags, from every line of the field.
type etagCondition struct {
	any  bool
	tags []entityTag
}

// quoteETag is the strong entity tag of v, as the ETag header sends it.
func quoteETag(v string) string { return `"` + v + `"` }

// parseETagCondition reads the field name of h. It returns nil when the
// field is absent, and false when it is malformed: neither "*" nor a
// comma-separated list of entity tags. Empty list elements are allowed,
// as the list syntax of RFC 9110 (section 5.6.1) says.
func parseETagCondition(h http.Header, name string) (*etagCondition, bool) {
	values := h.Values(name)
	if len(values) == 0 {
		return nil, true
	}
	s := strings.TrimSpace(strings.Join(values, ","))
	if s == "*" {
		return &etagCondition{any: true}, true
	}
	c := &etagCondition{}
	for i := 0; ; {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == ',') {
			i++
		}
		if i == len(s) {
			return c, len(c.tags) > 0
		}
		var t entityTag
		if strings.HasPrefix(s[i:], "W/") {
			t.weak = true
			i += 2
		}
		if i == len(s) || s[i] != '"' {
			return nil, false
		}
		end := i + 1
		for end < len(s) && s[end] != '"' {
			if b := s[end]; b < 0x21 || b == 0x7f { // etagc: %x21 / %x23-7E / obs-text
				return nil, false
			}
			end++
		}
		if end == len(s) {
			return nil, false
		}
		t.opaque = s[i+1 : end]
		c.tags = append(c.tags, t)
		i = end + 1
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i < len(s) && s[i] != ',' {
			return nil, false
		}
	}
}

// matchesWeak reports whether the condition holds for a current
// representation whose tag is opaque, by the weak comparison that
// If-None-Match uses: W/"v" and "v" are the same tag.
func (c *etagCondition) matchesWeak(opaque string) bool {
	if c.any {
		return true
	}
	for _, t := range c.tags {
		if t.opaque == opaque {
			return true
		}
	}
	return false
}

// matchesStrong reports whether the condition holds for a current
// representation whose tag is opaque, by the strong comparison that
// If-Match uses: a weak tag never matches.
func (c *etagCondition) matchesStrong(opaque string) bool {
	if c.any {
		return true
	}
	for _, t := range c.tags {
		if !t.weak && t.opaque == opaque {
			return true
		}
	}
	return false
}

// notModified answers 304 with the ETag, and no body, when the request's
// If-None-Match matches etag (the opaque tag); it returns false, having
// written nothing, otherwise. A malformed If-None-Match is the caller's
// 400: see parseETagCondition.
func notModified(w http.ResponseWriter, c *etagCondition, etag string) bool {
	if c == nil || !c.matchesWeak(etag) {
		return false
	}
	w.Header().Set("ETag", quoteETag(etag))
	w.WriteHeader(http.StatusNotModified)
	return true
}

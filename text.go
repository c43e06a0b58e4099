package gatehouse

import "strings"

// unsafeInText is the issue of text holding a rune that unsafeRune refuses.
const unsafeInText = "must not contain control characters or invisible direction marks"

// unsafeRune reports whether r may not appear in any text Gatehouse accepts
// (names, external ids, search terms), from the API, the CLI or the
// dashboard.
//
// Refused are:
//   - the C0 and C1 control characters and DEL: `key list` prints names
//     to terminals, where ESC and CSI sequences move the cursor, rewrite
//     earlier lines or set the window title; PostgreSQL refuses NUL in
//     text (a 500 instead of a 400); and U+001F joins the searched fields;
//   - the marks that reorder text invisibly, so that a name shows other
//     than it is written ("Trojan Source", CVE-2021-42574): the
//     bidirectional embeddings, overrides and isolates (U+202A–U+202E,
//     U+2066–U+2069) and the direction marks (U+200E, U+200F, U+061C);
//   - the line and paragraph separators (U+2028, U+2029), which end lines
//     in JavaScript and many viewers.
//
// Zero-width joiners (U+200C, U+200D) stay: emoji sequences and several
// scripts need them, and they reorder nothing.
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20, 0x7f <= r && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r == 0x2028, r == 0x2029:
		return true
	case 0x202a <= r && r <= 0x202e, 0x2066 <= r && r <= 0x2069:
		return true
	}
	return false
}

// HasUnsafeRune reports whether s holds a control character, a line or
// paragraph separator, or a bidirectional control (a mark, an embedding,
// an override or an isolate): characters that would make a text read
// other than it is, in a log or on a page.
func HasUnsafeRune(s string) bool { return strings.ContainsFunc(s, unsafeRune) }

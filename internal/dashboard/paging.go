package dashboard

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// maxPrev bounds how many pages back the Newer link remembers (each a
// cursor in the URL); past that, Newer leads towards the newest page by
// the pages it still knows.
const maxPrev = 40

// listForm reads the query of a list page (the Event Log, the Audit log):
// the filters as the form sent them, an empty field being an absent
// filter, and prev, the way back: the cursors of the newer pages walked
// to get here, newest first, the first page's being empty. prev is not a
// filter, so it is not left in form.
func listForm(r *http.Request) (form url.Values, prev []string) {
	form = r.URL.Query()
	for name, values := range form {
		if !slices.ContainsFunc(values, func(s string) bool { return s != "" }) {
			form.Del(name)
		}
	}
	if p := form.Get("prev"); p != "" {
		prev = strings.Split(p, " ")
	}
	form.Del("prev")
	return form, prev
}

// pageLinks are the Older and Newer links of a list page at path showing
// form's filters from cursor (empty on the first page). older, when next
// (the cursor of the following page) is set, carries this page's cursor
// on the way back, at most maxPrev of them; newer, on any page but the
// first, leads back to the page before.
func pageLinks(path string, form url.Values, cursor string, prev []string, next string) (older, newer string) {
	if next != "" {
		o := withoutCursor(form)
		o.Set("cursor", next)
		if cursor != "" {
			back := append([]string{cursor}, prev...)
			o.Set("prev", strings.Join(back[:min(len(back), maxPrev)], " "))
		}
		older = path + "?" + o.Encode()
	}
	if cursor != "" {
		n := withoutCursor(form)
		if len(prev) > 0 {
			n.Set("cursor", prev[0])
			if len(prev) > 1 {
				n.Set("prev", strings.Join(prev[1:], " "))
			}
		}
		newer = path + "?" + n.Encode()
	}
	return older, newer
}

package dashboard

import "net/url"

// pager holds the links of a keyset-paged list page, as the "pager"
// block of templates/pager.html shows them: Cursor is the page's own
// cursor (empty on the first page), Older and Newer lead to the pages
// beside it, Newest back to the first.
type pager struct {
	Older  string
	Newer  string
	Newest string
	Cursor string
}

// newPager makes the links of the page of the list at path that shows
// form's filters from its cursor, with prev the way back (as listForm
// reads it) and next the key of the following page (nil for none), which
// cursor writes as a cursor.
func newPager[K any](path string, form url.Values, prev []string, next *K, cursor func(K) string) pager {
	p := pager{Cursor: form.Get("cursor"), Newest: path + "?" + withoutCursor(form).Encode()}
	c := ""
	if next != nil {
		c = cursor(*next)
	}
	p.Older, p.Newer = pageLinks(path, form, p.Cursor, prev, c)
	return p
}

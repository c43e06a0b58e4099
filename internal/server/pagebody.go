package server

// pageBody is the body of a keyset-paged list: its rows (an empty array,
// never null) and the cursor of the next page (null after the last).
type pageBody[T any] struct {
	Data       []T     `json:"data"`
	NextCursor *string `json:"nextCursor"`
}

// newPageBody makes the body of a page of rows, with next the key of the
// page that follows (nil for none), which cursor writes as a cursor.
func newPageBody[T, K any](rows []T, next *K, cursor func(K) string) pageBody[T] {
	body := pageBody[T]{Data: rows}
	if body.Data == nil {
		body.Data = []T{}
	}
	if next != nil {
		c := cursor(*next)
		body.NextCursor = &c
	}
	return body
}

package sqlstore

// KeysetPage cuts rows, read one beyond the page, to limit (an empty
// slice, never nil, for none) and returns the key of the last row kept
// when another page follows (nil when rows were the whole rest).
func KeysetPage[T, K any](rows []T, limit int, key func(T) K) ([]T, *K) {
	if rows == nil {
		rows = []T{}
	}
	rows, last := TrimPage(rows, limit)
	if last == nil {
		return rows, nil
	}
	k := key(*last)
	return rows, &k
}

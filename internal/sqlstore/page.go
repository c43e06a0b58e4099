package sqlstore

// TrimPage cuts rows, read one beyond the page as every keyset query
// does, to limit, and returns the last row kept when another page follows
// (nil when rows were the whole rest).
func TrimPage[T any](rows []T, limit int) ([]T, *T) {
	if len(rows) <= limit {
		return rows, nil
	}
	rows = rows[:limit]
	return rows, &rows[limit-1]
}

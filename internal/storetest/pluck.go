package storetest

// pluck is of each of rows, in order, the field that of reads (the ids
// of a list, to compare with the ids expected).
func pluck[T, V any](rows []T, of func(T) V) []V {
	out := make([]V, len(rows))
	for i, r := range rows {
		out[i] = of(r)
	}
	return out
}

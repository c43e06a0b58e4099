package move

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
)

// row is a row read from SQLite: each column's value as the driver gives
// it (int64, float64, string, []byte or nil), by the table's column names.
type row struct {
	vals []any
	cols map[string]int
}

func (r row) get(col string) any { return r.vals[r.cols[col]] }

func (r row) text(col string) (string, error) {
	switch v := r.get(col).(type) {
	case string:
		return v, nil
	case []byte:
		return string(v), nil
	}
	return "", fmt.Errorf("column %s is %T, not text", col, r.get(col))
}

func (r row) uuid(col string) (uuid.UUID, error) {
	v, err := toUUID(r.get(col))
	if err != nil || v == nil {
		return uuid.Nil, fmt.Errorf("column %s: %v", col, err)
	}
	return v.(uuid.UUID), nil
}

func (r row) int(col string) (int64, error) {
	switch v := r.get(col).(type) {
	case int64:
		return v, nil
	case nil:
		return 0, nil
	}
	return 0, fmt.Errorf("column %s is %T, not an integer", col, r.get(col))
}

// convert is a column's conversion from SQLite's encoding to a value pgx
// writes to the PostgreSQL column.
type convert func(v any) (any, error)

// converter returns the conversion to a PostgreSQL column, chosen by its
// type: SQLite keeps uuids as 16 bytes, times as Unix milliseconds,
// booleans as 0 or 1, JSON and uuid lists as text. A timestamp whose
// PostgreSQL default is -infinity ("never": a lease not held) is
// -infinity where SQLite keeps its 0.
func converter(c pgColumn) (convert, error) {
	switch c.Type {
	case "uuid":
		return toUUID, nil
	case "timestamptz":
		never := strings.HasPrefix(c.Default, "'-infinity'")
		return func(v any) (any, error) { return toTime(v, never) }, nil
	case "bool":
		return toBool, nil
	case "int2", "int4", "int8":
		return toInt, nil
	case "text":
		return toText, nil
	case "bytea":
		return toBytes, nil
	case "jsonb", "json":
		return toJSON, nil
	case "_uuid":
		return toUUIDs, nil
	case "xid8":
		return func(v any) (any, error) {
			n, err := toInt(v)
			if n == nil || err != nil {
				return n, err
			}
			return uint64(n.(int64)), nil
		}, nil
	}
	return nil, fmt.Errorf("the move cannot convert type %s", c.Type)
}

func toUUID(v any) (any, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case []byte:
		return uuid.FromBytes(v)
	case string:
		return uuid.Parse(v)
	}
	return nil, fmt.Errorf("%T is not a uuid", v)
}

func toTime(v any, never bool) (any, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case int64:
		if v == 0 && never {
			return pgtype.Timestamptz{InfinityModifier: pgtype.NegativeInfinity, Valid: true}, nil
		}
		return time.UnixMilli(v).UTC(), nil
	}
	return nil, fmt.Errorf("%T is not a time in milliseconds", v)
}

func toBool(v any) (any, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case int64:
		return v != 0, nil
	}
	return nil, fmt.Errorf("%T is not a boolean", v)
}

func toInt(v any) (any, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case int64:
		return v, nil
	}
	return nil, fmt.Errorf("%T is not an integer", v)
}

func toText(v any) (any, error) {
	switch v := v.(type) {
	case nil, string:
		return v, nil
	case []byte:
		return string(v), nil
	}
	return nil, fmt.Errorf("%T is not text", v)
}

func toBytes(v any) (any, error) {
	switch v := v.(type) {
	case nil, []byte:
		return v, nil
	case string:
		return []byte(v), nil
	}
	return nil, fmt.Errorf("%T is not bytes", v)
}

func toJSON(v any) (any, error) {
	s, err := toText(v)
	if s == nil || err != nil {
		return s, err
	}
	if !json.Valid([]byte(s.(string))) {
		return nil, fmt.Errorf("%.40q is not JSON", s)
	}
	return s, nil
}

// toUUIDs reads a JSON array of uuids (a grant's access points).
func toUUIDs(v any) (any, error) {
	s, err := toText(v)
	if s == nil || err != nil {
		return s, err
	}
	ids := []uuid.UUID{}
	if err := json.Unmarshal([]byte(s.(string)), &ids); err != nil {
		return nil, fmt.Errorf("%.40q is not a JSON array of uuids: %v", s, err)
	}
	return ids, nil
}

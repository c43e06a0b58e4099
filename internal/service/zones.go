package service

import (
	"sync"
	"time"

	"github.com/gatehouse/gatehouse"
)

// zoneCache keeps the periods of each zone by window: a policy set
// is made on every GET /policies and sync version check, and walking a
// zone's transitions loads it from the embedded database each time.
// There are a few hundred zones and a window moves once a year, so it
// stays small.
var zoneCache sync.Map // zoneKey → []ZoneOffset

type zoneKey struct {
	name     string
	from, to int64
}

// cachedZoneOffsets is [gatehouse.ZoneOffsets] through zoneCache: the
// [gatehouse.ZoneSource] of every policy set the service makes.
func cachedZoneOffsets(name string, from, to time.Time) ([]gatehouse.ZoneOffset, error) {
	key := zoneKey{name, from.Unix(), to.Unix()}
	if v, ok := zoneCache.Load(key); ok {
		return v.([]gatehouse.ZoneOffset), nil
	}
	offsets, err := gatehouse.ZoneOffsets(name, from, to)
	if err != nil {
		return nil, err
	}
	zoneCache.Store(key, offsets)
	return offsets, nil
}

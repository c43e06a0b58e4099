package ratelimit

import (
	"context"
	"hash/fnv"
	"sync"
	"time"
)

const (
	localShards = 32
	// sweepEvery is how many new buckets a shard takes before it drops the
	// ones that have refilled, so idle keys cost no memory for long.
	sweepEvery = 1024
)

// Local is an in-process GCRA limiter. It is safe for concurrent use and
// forgets a bucket once it has refilled, so its memory follows the number
// of recently active keys, not all keys ever seen.
type Local struct {
	now    func() time.Time
	shards [localShards]localShard
}

type localShard struct {
	mu      sync.Mutex
	tat     map[string]time.Time // theoretical arrival time of each bucket
	inserts int
}

var _ Limiter = (*Local)(nil)

// NewLocal returns an empty limiter on the clock now.
func NewLocal(now func() time.Time) *Local {
	l := &Local{now: now}
	for i := range l.shards {
		l.shards[i].tat = make(map[string]time.Time)
	}
	return l
}

// Allow spends n requests from bucket key. It never returns an error.
func (l *Local) Allow(_ context.Context, key string, limit Limit, n int) (Result, error) {
	sh := l.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	// The time is read under the lock: a request that read it earlier and
	// then waited for the lock would be judged at a moment before the
	// decisions already made, as if it had jumped the queue, and at high
	// rates be refused.
	now := l.now()
	tat, ok := sh.tat[key]
	res := Decide(limit, now, tat, n)
	if res.Allowed && n > 0 {
		if !ok {
			sh.inserts++
			if sh.inserts%sweepEvery == 0 {
				sh.sweep(now)
			}
		}
		sh.tat[key] = now.Add(res.ResetAfter)
	}
	return res, nil
}

// Refund gives n requests back to bucket key. It never returns an error.
func (l *Local) Refund(_ context.Context, key string, limit Limit, n int) error {
	sh := l.shard(key)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	tat, ok := sh.tat[key]
	if !ok {
		return nil // refilled and swept: nothing left to give back
	}
	tat = tat.Add(-time.Duration(n) * limit.Rate.Interval())
	if now := l.now(); tat.After(now) {
		sh.tat[key] = tat
	} else {
		delete(sh.tat, key) // as full as a fresh bucket
	}
	return nil
}

func (l *Local) shard(key string) *localShard {
	h := fnv.New32a()
	h.Write([]byte(key))
	return &l.shards[h.Sum32()%localShards]
}

// Len reports how many buckets are held.
func (l *Local) Len() int {
	n := 0
	for i := range l.shards {
		sh := &l.shards[i]
		sh.mu.Lock()
		n += len(sh.tat)
		sh.mu.Unlock()
	}
	return n
}

// sweep drops the buckets that have refilled: they equal fresh ones.
func (sh *localShard) sweep(now time.Time) {
	for k, tat := range sh.tat {
		if !tat.After(now) {
			delete(sh.tat, k)
		}
	}
}

// Decide is GCRA: given a bucket's theoretical arrival time (zero for a
// fresh bucket), it decides whether n more requests fit at now. Each
// request costs one emission interval T; the bucket holds Burst of them.
// ResetAfter in the result tells when the bucket, after the decision, is
// full again, so the new arrival time is now + ResetAfter.
func Decide(limit Limit, now, tat time.Time, n int) Result {
	interval := limit.Rate.Interval()
	capacity := time.Duration(limit.Burst) * interval
	if tat.Before(now) {
		tat = now
	}
	newTAT := tat.Add(time.Duration(n) * interval)
	res := Result{Limit: limit, Allowed: newTAT.Sub(now) <= capacity}
	if res.Allowed {
		tat = newTAT
	} else {
		res.RetryAfter = newTAT.Sub(now) - capacity
	}
	res.ResetAfter = tat.Sub(now)
	res.Remaining = max(0, int((capacity-res.ResetAfter)/interval))
	return res
}

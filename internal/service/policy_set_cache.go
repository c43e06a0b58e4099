package service

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"sync"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// EncodedPolicySet is a universe's policy set as GET /policies answers
// it, encoded once per version and shared by every caller
// ([Service.EncodedPolicySet]): its JSON, the same gzipped, and what the
// answer's headers and log need.
type EncodedPolicySet struct {
	Version    string
	JSON, Gzip []byte
	Unreadable []gatehouse.UnreadablePolicy
}

// Bounds of the encoded sets an instance keeps:
//   - maxEncodedSetBytes: a set is at most
//     [gatehouse.MaxUniversePolicyBytes] of policies plus names, so a few
//     dozen fit;
//   - encodedSetAge: an older set is encoded again, so the memory follows
//     the universes read lately, not every universe ever read.
const (
	maxEncodedSetBytes = 64 << 20
	encodedSetAge      = 5 * time.Minute
)

type encodedSetKey struct {
	org               uuid.UUID
	universe, version string
}

// encodedSets keeps encoded sets by organization, universe and version,
// and makes concurrent callers that miss the same key wait for one
// encoding (a singleflight): sixteen requests for a set just changed
// read and encode it once.
type encodedSets struct {
	mu      sync.Mutex
	m       map[encodedSetKey]encodedSetEntry
	bytes   int
	pending map[encodedSetKey]*encodedSetCall
}

type encodedSetEntry struct {
	set *EncodedPolicySet
	at  time.Time
}

type encodedSetCall struct {
	done chan struct{}
	set  *EncodedPolicySet
	err  error
}

// get returns the set of key, from the cache or from load, which runs at
// most once at a time per key. The set load returns is kept under its own
// version (the set may have changed since key's version was read).
func (c *encodedSets) get(key encodedSetKey, now time.Time, load func() (*EncodedPolicySet, error)) (*EncodedPolicySet, error) {
	c.mu.Lock()
	if e, ok := c.m[key]; ok && now.Sub(e.at) < encodedSetAge {
		c.mu.Unlock()
		return e.set, nil
	}
	if call, ok := c.pending[key]; ok {
		c.mu.Unlock()
		<-call.done
		return call.set, call.err
	}
	if c.pending == nil {
		c.pending = map[encodedSetKey]*encodedSetCall{}
	}
	call := &encodedSetCall{done: make(chan struct{})}
	c.pending[key] = call
	c.mu.Unlock()

	call.set, call.err = load()
	c.mu.Lock()
	delete(c.pending, key)
	if call.err == nil {
		key.version = call.set.Version
		c.put(key, call.set, now)
	}
	c.mu.Unlock()
	close(call.done)
	return call.set, call.err
}

// put keeps set, dropping entries past their age and then the oldest
// until the cache is within maxEncodedSetBytes. c.mu is held.
func (c *encodedSets) put(key encodedSetKey, set *EncodedPolicySet, now time.Time) {
	if c.m == nil {
		c.m = map[encodedSetKey]encodedSetEntry{}
	}
	if old, ok := c.m[key]; ok {
		c.bytes -= old.set.size()
	}
	c.m[key] = encodedSetEntry{set, now}
	c.bytes += set.size()
	for k, e := range c.m {
		if now.Sub(e.at) >= encodedSetAge {
			delete(c.m, k)
			c.bytes -= e.set.size()
		}
	}
	for c.bytes > maxEncodedSetBytes && len(c.m) > 1 {
		var oldest encodedSetKey
		first := true
		for k, e := range c.m {
			if k != key && (first || e.at.Before(c.m[oldest].at)) {
				oldest, first = k, false
			}
		}
		c.bytes -= c.m[oldest].set.size()
		delete(c.m, oldest)
	}
}

func (s *EncodedPolicySet) size() int { return len(s.JSON) + len(s.Gzip) }

// encodePolicySet writes set as the API answers it, and gzipped.
func encodePolicySet(set gatehouse.PolicySet) (*EncodedPolicySet, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf) // as every other answer: HTML not escaped, a final newline
	enc.SetEscapeHTML(false)
	if err := enc.Encode(set); err != nil {
		return nil, err
	}
	body := buf.Bytes()
	var zipped bytes.Buffer
	zw, err := gzip.NewWriterLevel(&zipped, gzip.BestSpeed)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(body); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return &EncodedPolicySet{Version: set.Version, JSON: body, Gzip: zipped.Bytes(), Unreadable: set.Unreadable}, nil
}

package service

import (
	"bytes"
	"compress/gzip"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// TestEncodedSetsShareOneEncoding:
//   - callers that miss the same version at once wait for one load and
//     share its bytes;
//   - a later caller is served from the cache until the entry's age;
//   - the cache stays within its bytes, dropping the oldest entries first.
func TestEncodedSetsShareOneEncoding(t *testing.T) {
	var c encodedSets
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	key := encodedSetKey{uuid.New(), "42", "v1"}
	var loads atomic.Int32
	release := make(chan struct{})
	load := func() (*EncodedPolicySet, error) {
		loads.Add(1)
		<-release
		return encodePolicySet(gatehouse.NewPolicySet("42", nil, now, nil))
	}
	var wg sync.WaitGroup
	got := make([]*EncodedPolicySet, 16)
	for i := range got {
		wg.Go(func() {
			var err error
			if got[i], err = c.get(key, now, load); err != nil {
				t.Error(err)
			}
		})
	}
	for {
		c.mu.Lock()
		waiting := c.pending[key] != nil
		c.mu.Unlock()
		if waiting {
			break
		}
		time.Sleep(time.Millisecond)
	}
	close(release)
	wg.Wait()
	if n := loads.Load(); n != 1 {
		t.Fatalf("16 callers of one version: %d loads, want 1", n)
	}
	set := got[0]
	key.version = set.Version
	again, _ := c.get(key, now.Add(time.Minute), load)
	if again != set {
		t.Errorf("a later caller was not served the cached set")
	}
	zr, err := gzip.NewReader(bytes.NewReader(set.Gzip))
	if err != nil {
		t.Fatal(err)
	}
	if plain, _ := io.ReadAll(zr); !bytes.Equal(plain, set.JSON) {
		t.Errorf("gzip holds %q, JSON %q", plain, set.JSON)
	}
	before := loads.Load()
	c.get(key, now.Add(encodedSetAge), load)
	if loads.Load() != before+1 {
		t.Errorf("an entry of encodedSetAge was served, not loaded again")
	}

	big := &EncodedPolicySet{Version: "big", JSON: make([]byte, maxEncodedSetBytes/3)}
	for i := range 5 {
		k := encodedSetKey{uuid.New(), "42", "big"}
		c.get(k, now.Add(encodedSetAge+time.Duration(i)*time.Second), func() (*EncodedPolicySet, error) { return big, nil })
	}
	if c.bytes > maxEncodedSetBytes || len(c.m) != 3 {
		t.Errorf("cache of %d bytes in %d entries, bound %d", c.bytes, len(c.m), maxEncodedSetBytes)
	}
}

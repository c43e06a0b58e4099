package password

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"golang.org/x/crypto/argon2"
)

func TestHashAndVerify(t *testing.T) {
	h, err := Hash("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=65536,t=2,p=1$") {
		t.Errorf("hash %q is not a PHC argon2id string with the documented costs", h)
	}
	if h2, _ := Hash("correct horse battery"); h2 == h {
		t.Error("two hashes of one password are equal: the salt is not random")
	}
	for pw, want := range map[string]bool{"correct horse battery": true, "correct horse batterY": false, "": false} {
		if ok, err := Verify(context.Background(), pw, h); ok != want || err != nil {
			t.Errorf("Verify(%q) = %v, %v", pw, ok, err)
		}
	}
	for _, bad := range []string{"", "plain", "$argon2i$v=19$m=1,t=1,p=1$AA$AA", "$argon2id$v=19$m=x$AA$AA", "$argon2id$v=19$m=8,t=1,p=1$!!$AA"} {
		if _, err := Verify(context.Background(), "x", bad); err != ErrMalformedHash {
			t.Errorf("Verify(%q) err = %v", bad, err)
		}
	}
}

// TestHashesRunAtMostSlotsAtOnce: however many verifications arrive at
// once, no more argon2id runs are in progress than there are slots, each
// holding its 64 MiB. In a synctest bubble, Wait returns once every
// verification is either hashing (held inside the run) or waiting for a
// slot, so the count is exact, not a matter of timing.
func TestHashesRunAtMostSlotsAtOnce(t *testing.T) {
	h, err := Hash("pw")
	if err != nil {
		t.Fatal(err)
	}
	saved := slots
	t.Cleanup(func() { slots, idKey = saved, argon2.IDKey })
	synctest.Test(t, func(t *testing.T) {
		slots = make(chan struct{}, 2)
		var mu sync.Mutex
		running := 0
		leave := make(chan struct{})
		idKey = func(password, salt []byte, time, memory uint32, threads uint8, keyLen uint32) []byte {
			mu.Lock()
			running++
			mu.Unlock()
			<-leave
			return make([]byte, keyLen)
		}
		var wg sync.WaitGroup
		for range 20 {
			wg.Go(func() { Verify(context.Background(), "wrong", h) })
		}
		synctest.Wait()
		mu.Lock()
		if running != 2 {
			t.Errorf("%d argon2id runs at once with 2 slots", running)
		}
		mu.Unlock()
		close(leave)
		wg.Wait()
	})
}

// TestVerifyGivesUpWhenBusy: with every slot taken until the context
// ends, Verify answers ErrBusy without hashing.
func TestVerifyGivesUpWhenBusy(t *testing.T) {
	h, err := Hash("pw")
	if err != nil {
		t.Fatal(err)
	}
	for range cap(slots) {
		slots <- struct{}{}
	}
	t.Cleanup(func() {
		for range cap(slots) {
			<-slots
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if ok, err := Verify(ctx, "pw", h); ok || err != ErrBusy {
		t.Fatalf("Verify with every slot busy = %v, %v; want ErrBusy", ok, err)
	}
}

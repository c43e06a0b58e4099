package testenv_test

import (
	"bufio"
	"fmt"
	"net"
	"runtime"
	"testing"

	"github.com/gatehouse/gatehouse/internal/testenv"
)

// outcome runs fn with a testing.TB that records whether fn skipped or
// failed the test, without ending the real one.
func outcome(t *testing.T, fn func(testing.TB)) string {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(r)
		r.ended = "ran"
	}()
	<-done
	return r.ended
}

type recorder struct {
	testing.TB
	ended string
}

func (r *recorder) Helper() {}

func (r *recorder) Skipf(format string, args ...any) {
	r.ended = "skipped: " + fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.ended = "failed: " + fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// TestUnconfiguredServicesSkipLocallyAndFailInCI is the promise of
// DEVELOPERS.md: without its service a test skips, unless CI=true, where a
// skip would hide a failure.
func TestUnconfiguredServicesSkipLocallyAndFailInCI(t *testing.T) {
	t.Setenv("GATEHOUSE_TEST_POSTGRES", "")
	t.Setenv("GATEHOUSE_TEST_REDIS", "")
	needs := map[string]func(testing.TB){
		"PostgresDSN": func(tb testing.TB) { testenv.PostgresDSN(tb) },
		"PostgresURL": func(tb testing.TB) { testenv.PostgresURL(tb) },
		"RedisURL":    func(tb testing.TB) { testenv.RedisURL(tb) },
		"RedisProxy":  func(tb testing.TB) { testenv.RedisProxy(tb) },
		"Missing":     func(tb testing.TB) { testenv.Missing(tb, "node is not installed") },
	}
	for ci, want := range map[string]string{"": "skipped: ", "true": "failed: "} {
		t.Setenv("CI", ci)
		for name, need := range needs {
			if got := outcome(t, need); len(got) < len(want) || got[:len(want)] != want {
				t.Errorf("CI=%q: %s %s, want it %s", ci, name, got, want)
			}
		}
	}
	t.Setenv("CI", "")
	t.Setenv("GATEHOUSE_TEST_REDIS", "redis://127.0.0.1:6379/0")
	if got := outcome(t, func(tb testing.TB) { testenv.RedisURL(tb) }); got != "ran" {
		t.Errorf("RedisURL with the variable set: %s", got)
	}
}

// TestProxyCutsAndRestores: a cut proxy refuses connections and closes
// those it carried; restored, it forwards again on the same address.
func TestProxyCutsAndRestores(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				s := bufio.NewScanner(c)
				for s.Scan() {
					fmt.Fprintln(c, s.Text())
				}
			}()
		}
	}()
	p := testenv.NewProxy(t, ln.Addr().String())
	echo := func() (string, error) {
		c, err := net.Dial("tcp", p.Addr())
		if err != nil {
			return "", err
		}
		defer c.Close()
		fmt.Fprintln(c, "ping")
		return bufio.NewReader(c).ReadString('\n')
	}
	if got, err := echo(); err != nil || got != "ping\n" {
		t.Fatalf("through the proxy: %q, %v", got, err)
	}
	p.Cut()
	if got, err := echo(); err == nil {
		t.Errorf("a cut proxy answered %q", got)
	}
	p.Restore(t)
	if got, err := echo(); err != nil || got != "ping\n" {
		t.Errorf("through the restored proxy: %q, %v", got, err)
	}
}

package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var (
	buildOnce sync.Once
	binDir    string
	binErr    error
)

// gatehouseBinary builds cmd/gatehouse once per test run, for tests that
// need real processes.
func gatehouseBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "gatehouse-bin-"); binErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(binDir, "gatehouse"), "github.com/gatehouse/gatehouse/cmd/gatehouse").CombinedOutput()
		if err != nil {
			binErr = &buildError{err: err, out: string(out)}
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return filepath.Join(binDir, "gatehouse")
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return "go build: " + e.err.Error() + "\n" + e.out }

// initAlloc is what the process had allocated when every package was
// initialised, before any test ran: what any gatehouse command pays
// before it starts (see TestCommandsHashNoPassword).
var initAlloc uint64

func TestMain(m *testing.M) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	initAlloc = ms.TotalAlloc
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

package cli_test

import (
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// TestCommandsHashNoPassword: a command that signs no one in pays for no
// argon2id run. The dashboard once hashed its sign-in dummy at package
// initialisation, so every invocation of the binary (gatehouse org list,
// gatehouse help) allocated and touched 64 MiB; the peak resident memory
// of a short command shows whether it still does.
func TestCommandsHashNoPassword(t *testing.T) {
	bin := gatehouseBinary(t)
	db := filepath.Join(t.TempDir(), "g.db")
	for _, args := range [][]string{{"help"}, {"org", "list", "--db", db}} {
		cmd := exec.Command(bin, args...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("gatehouse %v: %v\n%s", args, err, out)
		}
		ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		if !ok {
			t.Skip("no resource usage on this system")
		}
		const argon2MiB = 64
		if peakMiB := ru.Maxrss >> 10; peakMiB >= argon2MiB { // Maxrss is in KiB on Linux
			t.Errorf("gatehouse %v peaked at %d MiB of memory: it ran a password hash", args, peakMiB)
		} else {
			t.Logf("gatehouse %v peaked at %d MiB", args, peakMiB)
		}
	}
}

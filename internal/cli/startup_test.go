package cli_test

import "testing"

// TestCommandsHashNoPassword: a command that signs no one in pays for no
// argon2id run. The dashboard once hashed its sign-in dummy when its
// package was initialised, so every invocation of the binary (gatehouse
// help, gatehouse org list) allocated and filled 64 MiB before it began.
// This test binary initialises the same packages as cmd/gatehouse;
// TestMain records what they allocated.
func TestCommandsHashNoPassword(t *testing.T) {
	const argon2Memory = 64 << 20
	if initAlloc >= argon2Memory/2 {
		t.Errorf("initialising the command's packages allocated %d MiB: a password was hashed", initAlloc>>20)
	}
	t.Logf("initialising the command's packages allocated %.1f MiB", float64(initAlloc)/(1<<20))
}

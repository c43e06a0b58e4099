package cli_test

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/internal/cli"
)

// TestHelp: asking for help, of the binary, a group or a command, prints
// usage on stdout and succeeds.
func TestHelp(t *testing.T) {
	g := newGH(t)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--help"}, []string{"Usage: gatehouse COMMAND", "org create", "version"}},
		{[]string{"-h"}, []string{"Usage: gatehouse COMMAND"}},
		{[]string{"help"}, []string{"Usage: gatehouse COMMAND"}},
		{[]string{"org", "--help"}, []string{"Usage: gatehouse org COMMAND", "org create", "org list"}},
		{[]string{"help", "key"}, []string{"key create", "key list", "key set-rate", "key revoke"}},
		{[]string{"help", "key", "set-rate"}, []string{"Usage: gatehouse key set-rate", "-rate-limit", "N/s|N/m|default"}},
		{[]string{"key", "create", "--help"}, []string{"Usage: gatehouse key create", "-expires-in", "-scopes"}},
		{[]string{"help", "key", "revoke"}, []string{"Usage: gatehouse key revoke", "revoke a key"}},
		{[]string{"serve", "-h"}, []string{"Usage: gatehouse serve", "-trusted-proxies"}},
		{[]string{"version", "--help"}, []string{"Usage: gatehouse version"}},
		{[]string{"command", "--help"}, []string{"command unlock", "command list", "command show", "command cancel"}},
		{[]string{"command", "unlock", "--help"}, []string{"-as", "-idempotency-key", "-platform-user-id", "-server-job-id", "-ttl"}},
		{[]string{"help", "location", "set-universe"}, []string{"Usage: gatehouse location set-universe", "UNIVERSE_ID"}},
		{[]string{"location", "--help"}, []string{"location archive", "location restore", "location delete"}},
		{[]string{"access-point", "--help"}, []string{"access-point archive", "access-point restore", "access-point delete"}},
		{[]string{"help", "access-point", "delete"}, []string{"Usage: gatehouse access-point delete", "ACCESS_POINT_ID", "archive the others"}},
		{[]string{"--help"}, []string{"policy show", "policy set", "decide "}},
		{[]string{"policy", "--help"}, []string{"Usage: gatehouse policy COMMAND", "policy show", "exits 3 when it has none", "policy set"}},
		{[]string{"policy", "set", "--help"}, []string{"FILE|-", "-if-version", "-json"}},
		{[]string{"help", "decide"}, []string{"Usage: gatehouse decide", "records nothing", "-access-point", "-attributes", "-at", "-platform-user-id", "-server-job-id"}},
	} {
		out, errOut, err := g.run(nil, c.args...)
		if err != nil || errOut != "" {
			t.Errorf("gatehouse %s: %v, stderr %q", strings.Join(c.args, " "), err, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("gatehouse %s printed %q, want %q in it", strings.Join(c.args, " "), out, w)
			}
		}
	}
}

// TestWrongCommandsShowUsageOnStderr: a command line that names no command
// is a usage error (exit 2) with the usage on stderr, nothing on stdout.
func TestWrongCommandsShowUsageOnStderr(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "Usage: gatehouse COMMAND"},
		{[]string{"frobnicate"}, "Usage: gatehouse COMMAND"},
		{[]string{"org"}, "org list"},
		{[]string{"org", "frobnicate"}, "org create"},
		{[]string{"help", "frobnicate"}, "Usage: gatehouse COMMAND"},
		{[]string{"org", "create", "--bogus"}, "Usage: gatehouse org create"},
	} {
		var out, errOut bytes.Buffer
		err := cli.Run(context.Background(), c.args, func(string) string { return "" }, strings.NewReader(""), &out, &errOut)
		var usage *cli.UsageError
		if !errors.As(err, &usage) || out.Len() != 0 || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("gatehouse %s: %v\nstdout %q\nstderr %q", strings.Join(c.args, " "), err, out.String(), errOut.String())
		}
	}
}

// TestHelpExitStatus runs the binary: help exits 0, a wrong command 2.
func TestHelpExitStatus(t *testing.T) {
	bin := gatehouseBinary(t)
	for args, want := range map[string]int{"--help": 0, "org --help": 0, "key create --help": 0, "frobnicate": 2, "org": 2} {
		cmd := exec.Command(bin, strings.Fields(args)...)
		cmd.Dir = t.TempDir()
		err := cmd.Run()
		code := 0
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != want {
			t.Errorf("gatehouse %s exited %d, want %d", args, code, want)
		}
	}
}

// TestHelpShowsNoSecret: the OpenID client secret given in the
// environment shows in neither serve's help nor a mistyped flag's usage.
func TestHelpShowsNoSecret(t *testing.T) {
	g := newGH(t)
	g.env["GATEHOUSE_OIDC_CLIENT_SECRET"] = "the-client-secret-of-the-idp"
	for _, args := range [][]string{{"serve", "-h"}, {"serve", "--no-such-flag"}} {
		out, errOut, _ := g.run(nil, args...)
		if !strings.Contains(out+errOut, "-oidc-client-secret") || strings.Contains(out+errOut, "the-client-secret-of-the-idp") {
			t.Errorf("gatehouse %s: %q", strings.Join(args, " "), out+errOut)
		}
	}
}

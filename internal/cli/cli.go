// Package cli is the gatehouse command: every subcommand, run in-process by
// Run so the whole binary can be tested without building it.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// UsageError is a command line that cannot be run as written; the binary
// exits with status 2 for it.
type UsageError struct{ msg string }

func (e *UsageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &UsageError{msg: fmt.Sprintf(format, args...)}
}

// env is what every command receives: its arguments and the process's
// surroundings, never globals.
type env struct {
	args   []string
	getenv func(string) string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	now    func() time.Time
}

type command struct {
	name, summary string
	run           func(ctx context.Context, e *env) error
}

func commands() []command {
	return []command{
		{"serve", "run the API", runServe},
		{"migrate", "apply database migrations", runMigrate},
		{"demo", "create demo data, print a key and curl lines, then serve", runDemo},
		{"org create", "create an organization: --name NAME", runOrgCreate},
		{"org list", "list organizations", runOrgList},
		{"key create", "create an API key: --org ID --name NAME --scopes LIST [--expires-in D | --expires-at T] [--rate-limit N/s]", runKeyCreate},
		{"key list", "list an organization's keys: --org ID", runKeyList},
		{"key revoke", "revoke a key: KEY_ID", runKeyRevoke},
		{"location create", "create a location: --org ID --name NAME", runLocationCreate},
		{"location list", "list an organization's locations: --org ID", runLocationList},
		{"access-point create", "create an access point: --location ID --name NAME", runAccessPointCreate},
		{"access-point list", "list a location's access points: --location ID", runAccessPointList},
		{"event import", "import NDJSON events: --org ID [FILE|-]", runEventImport},
		{"user create", "create a dashboard user: --org ID --email EMAIL [--name NAME]", runUserCreate},
		{"user set-password", "set a dashboard user's password and end their sessions: --email EMAIL", runUserSetPassword},
		{"bench seed", "write a synthetic log: --events N --orgs M --seed S", runBenchSeed},
		{"bench run", "measure a running server: --url URL --key KEY [--concurrency C --duration D --org ORG]", runBenchRun},
	}
}

// Run runs the gatehouse command line args (without the program name).
func Run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	e := &env{getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr, now: time.Now}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		printUsage(stdout)
		if len(args) == 0 {
			return usagef("no command given")
		}
		return nil
	}
	for _, c := range commands() {
		words := strings.Fields(c.name)
		if len(args) >= len(words) && strings.Join(args[:len(words)], " ") == c.name {
			e.args = args[len(words):]
			return c.run(ctx, e)
		}
	}
	return usagef("unknown command %q; run 'gatehouse help'", strings.Join(args[:min(2, len(args))], " "))
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "Usage: gatehouse COMMAND [flags]\n\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-20s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nEvery command accepts --db (GATEHOUSE_DB, default gatehouse.db); commands that print a record accept --json.")
}

// flags is a command's flag set with the settings every command shares.
type flags struct {
	*flag.FlagSet
	e    *env
	db   *string
	json *bool
}

func newFlags(e *env, name string) *flags {
	fs := flag.NewFlagSet("gatehouse "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	f := &flags{FlagSet: fs, e: e}
	f.db = f.setting("db", "GATEHOUSE_DB", "gatehouse.db", "database: a SQLite path (or sqlite:PATH) or a postgres:// URL")
	f.json = fs.Bool("json", false, "print exactly one JSON document")
	return f
}

// setting is a string flag whose default comes from an environment
// variable, so the flag wins over the variable.
func (f *flags) setting(name, envVar, def, usage string) *string {
	if v := f.e.getenv(envVar); v != "" {
		def = v
	}
	return f.String(name, def, usage+" ("+envVar+")")
}

// parse reads the flags and returns the positional arguments. Flags may
// come after positional ones ("key revoke ID --json").
func (f *flags) parse(maxArgs int) ([]string, error) {
	var positional []string
	args := f.e.args
	for {
		if err := f.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, usagef("see the flags above")
			}
			return nil, usagef("%v", err)
		}
		if f.NArg() == 0 {
			break
		}
		positional = append(positional, f.Arg(0))
		args = f.Args()[1:]
	}
	if len(positional) > maxArgs {
		return nil, usagef("unexpected argument %q", positional[maxArgs])
	}
	return positional, nil
}

func required(name, value string) error {
	if strings.TrimSpace(value) == "" {
		return usagef("--%s is required", name)
	}
	return nil
}

func parseID(flagName, value string) (uuid.UUID, error) {
	if err := required(flagName, value); err != nil {
		return uuid.UUID{}, err
	}
	id, err := gatehouse.ParseUUID(value)
	if err != nil {
		return id, usagef("--%s must be a UUID, got %q", flagName, value)
	}
	return id, nil
}

// print writes a record: one JSON document with --json, else a human line.
func (f *flags) print(record any, human string, args ...any) error {
	if *f.json {
		enc := json.NewEncoder(f.e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(record)
	}
	_, err := fmt.Fprintf(f.e.stdout, human+"\n", args...)
	return err
}

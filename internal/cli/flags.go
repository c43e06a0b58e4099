package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// flags is a command's flag set with the settings every command shares.
type flags struct {
	*flag.FlagSet
	e  *env
	db *string
	// shards is --shards: the other PostgreSQL primaries, comma-separated.
	shards *string
	json   *bool
	// as is --as, for a command that changes records (see actor).
	as *string
	// msgs holds what the flag package writes (usage, errors) until parse
	// knows where it belongs: stdout when help was asked for, else stderr.
	msgs bytes.Buffer
}

func newFlags(e *env, name string) *flags {
	fs := flag.NewFlagSet("gatehouse "+name, flag.ContinueOnError)
	f := &flags{FlagSet: fs, e: e}
	fs.SetOutput(&f.msgs)
	fs.Usage = func() { printCommandUsage(fs.Output(), name, fs) }
	f.db = f.dsnSetting("db", "GATEHOUSE_DB", "gatehouse.db", "database: a SQLite path (or sqlite:PATH) or a postgres:// URL")
	f.shards = f.dsnSetting("shards", "GATEHOUSE_SHARDS", "", "more PostgreSQL primaries (postgres:// URLs, comma-separated) that hold organizations, with a postgres:// --db")
	f.json = fs.Bool("json", false, "print exactly one JSON document")
	return f
}

// shardList is --shards as a list.
func (f *flags) shardList() []string {
	var list []string
	for _, s := range strings.Split(*f.shards, ",") {
		if s = strings.TrimSpace(s); s != "" {
			list = append(list, s)
		}
	}
	return list
}

// setting is a string flag whose default comes from an environment
// variable, so the flag wins over the variable.
func (f *flags) setting(name, envVar, def, usage string) *string {
	if v := f.e.getenv(envVar); v != "" {
		def = v
	}
	return f.String(name, def, usage+" ("+envVar+")")
}

// dsnSetting is setting for database URLs: the usage that --help and a
// mistyped flag print shows the environment's value without its
// passwords.
func (f *flags) dsnSetting(name, envVar, def, usage string) *string {
	v := &dsnValue{def}
	if env := f.e.getenv(envVar); env != "" {
		v.value = env
	}
	f.Var(v, name, usage+" ("+envVar+")")
	return &v.value
}

// dsnValue is a flag's database URLs, comma-separated, that print
// without their passwords.
type dsnValue struct{ value string }

func (v *dsnValue) Set(s string) error { v.value = s; return nil }

func (v *dsnValue) String() string {
	if v == nil {
		return ""
	}
	parts := strings.Split(v.value, ",")
	for i, p := range parts {
		if u, err := url.Parse(strings.TrimSpace(p)); err == nil && u.User != nil {
			parts[i] = u.Redacted()
		}
	}
	return strings.Join(parts, ",")
}

// secretSetting is setting for a secret: the usage that --help and a
// mistyped flag print never shows its value. Prefer the environment
// variable to the flag, which other users of the machine see in ps.
func (f *flags) secretSetting(name, envVar, usage string) *string {
	v := &secretValue{f.e.getenv(envVar)}
	f.Var(v, name, usage+" ("+envVar+", better than the flag)")
	return &v.value
}

// secretValue is a flag's secret, which prints as nothing.
type secretValue struct{ value string }

func (v *secretValue) Set(s string) error { v.value = s; return nil }

func (v *secretValue) String() string { return "" }

// boolSetting is a boolean flag whose default comes from an environment
// variable (true, 1, false, 0…; anything else reads as false).
func (f *flags) boolSetting(name, envVar, usage string) *bool {
	def, _ := strconv.ParseBool(f.e.getenv(envVar))
	return f.Bool(name, def, usage+" ("+envVar+")")
}

// parse reads the flags and returns the positional arguments. Flags may
// come after positional ones ("key revoke ID --json").
func (f *flags) parse(maxArgs int) ([]string, error) {
	var positional []string
	args := f.e.args
	for {
		if err := f.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				io.Copy(f.e.stdout, &f.msgs)
				return nil, errHelpShown
			}
			io.Copy(f.e.stderr, &f.msgs)
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

// positionalID reads the one id a command takes as its argument; usage is
// the command's synopsis for the error.
func positionalID(args []string, usage, what string) (uuid.UUID, error) {
	if len(args) != 1 {
		return uuid.UUID{}, usagef("usage: gatehouse %s", usage)
	}
	id, err := gatehouse.ParseUUID(args[0])
	if err != nil {
		return uuid.UUID{}, usagef("%s must be a UUID, got %q", what, args[0])
	}
	return id, nil
}

// flagNames maps the fields of a CommandRequest, and the parameters of the
// feed (event tail), to the flags that set them, so that the service's
// issues name what the operator typed.
var flagNames = map[string]string{
	"locationId":      "--location",
	"type":            "--type",
	"allowed":         "--allowed",
	"reason":          "--reason",
	"after":           "--after",
	"accessPointId":   "--access-point",
	"scope":           "--scope",
	"serverJobId":     "--server-job-id",
	"platformUserId":  "--platform-user-id",
	"durationSeconds": "--duration",
	"ttlSeconds":      "--ttl",
	"note":            "--note",
	"Idempotency-Key": "--idempotency-key",
}

// flagIssues renames the fields of a *ValidationError to flags; any other
// error is returned as it is.
func flagIssues(err error) *gatehouse.ValidationError {
	var ve *gatehouse.ValidationError
	if !errors.As(err, &ve) {
		return nil
	}
	var out gatehouse.ValidationError
	for field, msgs := range ve.Issues {
		if name, ok := flagNames[field]; ok {
			field = name
		}
		for _, m := range msgs {
			if field == "--duration" || field == "--ttl" {
				m = strings.Replace(m, "must be between", "must be, in seconds, between", 1)
			}
			out.Add(field, "%s", m)
		}
	}
	return &out
}

// durationValue is a flag read by gatehouse.ParseDuration, so that every
// duration flag accepts days ("30d", "1d12h") as well as Go's units.
type durationValue time.Duration

func (d *durationValue) String() string { return time.Duration(*d).String() }

func (d *durationValue) Set(s string) error {
	v, err := gatehouse.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = durationValue(v)
	return nil
}

// duration defines a duration flag that accepts days, the counterpart of
// flag.FlagSet.Duration.
func (f *flags) duration(name string, def time.Duration, usage string) *time.Duration {
	d := def
	f.Var((*durationValue)(&d), name, usage)
	return &d
}

// Package cli is the gatehouse command: every subcommand, run in-process by
// Run so the whole binary can be tested without building it.
package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/gatehouse/gatehouse/internal/sqlite"
	"github.com/google/uuid"
	"golang.org/x/term"
)

// UsageError is a command line that cannot be run as written; the binary
// exits with status 2 for it.
type UsageError struct{ msg string }

func (e *UsageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &UsageError{msg: fmt.Sprintf(format, args...)}
}

// ExitStatus is the status the binary exits with for an error of Run: 0
// for none, 2 for a *UsageError, a command's own status for an error that
// carries one (policy show's 3 for an access point without a policy), and
// 1 for any other failure.
func ExitStatus(err error) int {
	var usage *UsageError
	var coded interface{ ExitStatus() int }
	switch {
	case err == nil:
		return 0
	case errors.As(err, &usage):
		return 2
	case errors.As(err, &coded):
		return coded.ExitStatus()
	}
	return 1
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
		{"move-to-postgres", "move the SQLite database of --db, or one organization of it, into PostgreSQL, all or nothing; stop its servers first: --to postgres://… [--org ORG_ID]", runMoveToPostgres},
		{"shard list", "list the PostgreSQL primaries of --db and --shards: each one's id, address, organizations and whether it answers", runShardList},
		{"shard move", "move an organization, with every record of it, to another shard while it is served (its calls wait two to three seconds at the end): ORG_ID SHARD", runShardMove},
		{"demo", "create demo data, print a key and curl lines, then serve", runDemo},
		{"org create", "create an organization: --name NAME", runOrgCreate},
		{"org list", "list organizations", runOrgList},
		{"org set-sso", "require an organization's dashboard users to sign in through the OpenID provider (serve --oidc-issuer), or stop requiring it; their passwords then sign nobody in: ORG_ID required|optional", runOrgSetSSO},
		{"org set-second-factor", "require a second factor of an organization's dashboard users, or stop requiring it; users without one set it up at their next sign-in: ORG_ID required|optional", runOrgSetSecondFactor},
		{"org set-retention", "keep an organization's events DAYS days (367 or more; by occurredAt), deleting older ones in the background: ORG_ID DAYS", runOrgSetRetention},
		{"org rename", "rename an organization: ORG_ID --name NAME", runOrgRename},
		{"key create", "create an API key: --org ID --name NAME --scopes LIST [--expires-in D | --expires-at T] [--rate-limit N/s]", runKeyCreate},
		{"key list", "list an organization's keys, marking those that expire within 14 days: --org ID", runKeyList},
		{"key set-rate", "change a key's rate limit, on every instance within a second (default: the server's --rate-limit): KEY_ID --rate-limit N/s|N/m|default", runKeySetRate},
		{"key revoke", "revoke a key: KEY_ID", runKeyRevoke},
		{"location create", "create a location: --org ID --name NAME [--universe-id N]", runLocationCreate},
		{"location rename", "rename a location (events keep the recorded name): LOCATION_ID --name NAME", runLocationRename},
		{"location set-universe", "set the platform universe of a location, whose servers receive its commands (\"\" clears it): LOCATION_ID UNIVERSE_ID", runLocationSetUniverse},
		{"location list", "list an organization's locations and their universes (archived ones too with --archived): --org ID [--archived]", runLocationList},
		{"location live", "a location now: each door's mode, unlocks and lockdown, and its universe's live servers: LOCATION_ID", runLocationLive},
		{"location archive", "archive a location: it and its access points leave the lists, their events stay and their policies still decide; new changes naming it are refused until restored: LOCATION_ID", runLocationArchive},
		{"location restore", "put an archived location back in use: LOCATION_ID", runLocationRestore},
		{"location delete", "delete a location created by mistake, with its grants: only one with no access points that no event, command or lockdown names (archive the others): LOCATION_ID", runLocationDelete},
		{"access-point create", "create an access point: --location ID --name NAME", runAccessPointCreate},
		{"access-point rename", "rename an access point (events keep the recorded name): ACCESS_POINT_ID --name NAME", runAccessPointRename},
		{"access-point move", "move an access point to another location of its organization: ACCESS_POINT_ID --location ID", runAccessPointMove},
		{"access-point list", "list a location's access points (archived ones too with --archived): --location ID [--archived]", runAccessPointList},
		{"access-point archive", "archive an access point: it leaves the lists, its events stay and its policy still decides; new changes naming it (policy, unlock, grant) are refused until restored: ACCESS_POINT_ID", runAccessPointArchive},
		{"access-point restore", "put an archived access point back in use: ACCESS_POINT_ID", runAccessPointRestore},
		{"access-point delete", "delete an access point created by mistake, with its policy, and take it off its grants: only one no event or command names (archive the others): ACCESS_POINT_ID", runAccessPointDelete},
		{"policy show", "print an access point's current policy; exits 3 when it has none yet: ACCESS_POINT_ID", runPolicyShow},
		{"policy set", "set an access point's policy from JSON as the API takes it (FILE, or - for stdin; version and updatedAt, as policy show --json prints them, are ignored); prints the new version or \"unchanged\", or every problem by field path (exit 1): ACCESS_POINT_ID FILE|- [--if-version N]", runPolicySet},
		{"decide", "explain what an access point's policy decides for a player, now or at --at: outcome, reason, rule and its text; records nothing: --access-point ID --platform-user-id ID [--server-job-id J] [--attributes JSON] [--at RFC3339 [--current-policy]], or a recorded attempt: --org ID --event ID [--attributes JSON] [--current-policy]", runDecide},
		{"messaging set", "push a universe's commands to the platform's messaging; the Open Cloud key is read from stdin: --org ID --universe-id N", runMessagingSet},
		{"messaging list", "list the universes whose commands are pushed, by key hint: --org ID", runMessagingList},
		{"messaging remove", "stop pushing a universe's commands and delete its key: --org ID --universe-id N", runMessagingRemove},
		{"webhook create", "create a webhook endpoint and print its secret, once: --org ID --url URL [--description D] [--types event.created,command.updated] [--filter NAME=VALUE …] [--webhooks-allow-private]", runWebhookCreate},
		{"webhook list", "list an organization's webhook endpoints and whether they fail: --org ID", runWebhookList},
		{"webhook delete", "delete a webhook endpoint and its delivery log: --org ID WEBHOOK_ID", runWebhookDelete},
		{"webhook replay", "send a webhook endpoint's events again from a starting point, which must be given; prints how many: --org ID (--after CURSOR | --from start) [--dry-run] WEBHOOK_ID", runWebhookReplay},
		{"webhook rotate-secret", "give a webhook endpoint a new secret and print it, once; the previous one signs too until --overlap ends: --org ID [--overlap 24h] WEBHOOK_ID", runWebhookRotateSecret},
		{"alert-rule create", "create an alert rule to Discord, Slack or a Standard Webhooks receiver: --org ID --name NAME --format discord|slack|standard-webhooks --url URL (--threshold N [--window 5m] [--group-by platformUserId|accessPointId|none] [--filter NAME=VALUE …] | --audit-actions A,B) [--cooldown 5m] [--webhooks-allow-private]", runAlertRuleCreate},
		{"alert-rule list", "list an organization's alert rules: --org ID", runAlertRuleList},
		{"alert-rule delete", "delete an alert rule and the alerts it fired: --org ID RULE_ID", runAlertRuleDelete},
		{"alert-rule test", "queue a test alert of a rule, sent by a running server: --org ID RULE_ID", runAlertRuleTest},
		{"alerts list", "list what an organization's alert rules fired, newest first, with each delivery's state: --org ID [--rule ID] [--limit N]", runAlertsList},
		{"event import", "import NDJSON events, ingest objects or whole events as exported (event tail, the dashboard): --org ID [FILE|-]", runEventImport},
		{"event compact", "rebuild packed the indexes of the months of events that take no more of them (PostgreSQL; every instance does it each hour): reads and writes go on", runEventCompact},
		{"event tail", "follow the event feed as NDJSON: --org ID [--access-point ID --type T … --cursor-file FILE --follow=false]", runEventTail},
		{"user invite", "invite a dashboard user: prints the link, shown once and good for 7 days, through which they choose their password: --org ID --email EMAIL [--name NAME] [--role admin|operator|viewer] [--public-url URL]", runUserInvite},
		{"user renew-invitation", "make a new invitation link for a user who has not joined (the old one stops working): --org ID --email EMAIL [--public-url URL]", runUserRenewInvitation},
		{"user create", "create a dashboard user with a password you give (GATEHOUSE_PASSWORD, or asked on the terminal), a member at once: --org ID --email EMAIL [--name NAME] [--role admin|operator|viewer]", runUserCreate},
		{"user list", "list an organization's dashboard users and their roles: --org ID", runUserList},
		{"user set-role", "change a user's role (a lowered role ends their sessions): --org ID --email EMAIL --role ROLE", runUserSetRole},
		{"user remove", "remove a dashboard user and end their sessions: --org ID --email EMAIL", runUserRemove},
		{"user set-password", "set a dashboard user's password (an invited user becomes a member) and end their sessions: --org ID --email EMAIL", runUserSetPassword},
		{"user end-sessions", "sign a dashboard user out everywhere (a lost laptop): --org ID --email EMAIL", runUserEndSessions},
		{"user reset-second-factor", "remove a dashboard user's second factor (a lost phone) and end their sessions; they sign in with their password and set one up again: --org ID --email EMAIL", runUserResetSecondFactor},
		{"privacy erasure-webhook", "print the organization's right-to-erasure webhook (its path and secret, to paste in the platform's settings), setting it up when it has none: --org ID [--new]", runPrivacyErasureWebhook},
		{"user-data erase", "erase a player from an organization: every event and command of the platform user id; the audit log keeps a keyed hash only: --org ID PLATFORM_USER_ID", runUserDataErase},
		{"command unlock", "unlock an access point remotely, for a dashboard user: --org ID --access-point ID --scope UNIVERSE|SERVER|PLAYER --as EMAIL [--server-job-id J] [--platform-user-id P] [--duration 10s] [--ttl 60s] [--note T] [--idempotency-key K]", runCommandUnlock},
		{"command list", "list an organization's remote commands, newest first, with how many servers executed them: --org ID [--status S] [--scope S] [--access-point ID] [--location ID] [--limit N]", runCommandList},
		{"command show", "show a remote command and each server's delivery and answer: COMMAND_ID", runCommandShow},
		{"command cancel", "cancel a remote command that is not settled; servers lock again: COMMAND_ID [--as EMAIL]", runCommandCancel},
		{"audit list", "print an organization's audit log, newest first: --org ID [--action A] [--actor-id ID] [--target-id ID] [--date-from T] [--date-to T] [--limit N]", runAuditList},
		{"bench seed", "write a synthetic log: --events N --orgs M --seed S [--ids v7|v4] [--order time|shuffled] [--jobs N] [--out FILE]", runBenchSeed},
		{"bench run", "measure a running server: --url URL --key KEY [--concurrency C --duration D --org ORG]", runBenchRun},
		{"bench feed", "measure a consumer catching up on the feed: --url URL --key KEY [--limit N]", runBenchFeed},
		{"bench polls", "measure long polls: --url URL --db DB [--servers N --commands M --issue-url URL2 --lockdown]", runBenchPolls},
		{"bench decisions", "measure POST /decisions: --url URL --db DB [--concurrency C --duration D --rate R --record=false]", runBenchDecisions},
		{"bench bytes", "what the stored events cost on disk: each table and index, in bytes per event: --db DB [--org ORG_ID] [--sample N]", runBenchBytes},
		{"bench webhooks", "measure the lag of webhook deliveries from a server run with --webhooks-allow-private: --url URL --db DB [--rate R --duration D --wait D --attack hang|slow]", runBenchWebhooks},
		{"version", "print the version of this build", runVersion},
		{"insights", "count an organization's events by a grouping, most first or by time: --org ID --group-by accessPointId|locationId|reason|type|platformUserId|hour|day|hourOfWeek [--time-zone Z] [--access-point ID] [--location ID] [--type T] [--allowed A] [--platform-user-id P] [--reason R] [--scope S] [--date-from T] [--date-to T] [--limit N]", runInsights},
		{"grant create", "let a player through access points (or every access point of a location) for a while, whatever their schedule: --org ID --player ID (--access-point ID … | --location ID) (--until RFC3339 | --for DURATION) [--from RFC3339] [--note T]", runGrantCreate},
		{"grant list", "list an organization's grants, newest first: --org ID [--player ID] [--access-point ID] [--active true|false] [--limit N]", runGrantList},
		{"grant revoke", "end a grant now: --org ID GRANT_ID", runGrantRevoke},
		{"lockdown start", "deny every access point of the organization, a universe or a location with LOCKDOWN until released (or --until/--for); unlocks in force end: --org ID (--organization | --universe ID | --location ID) --reason TEXT [--until RFC3339 | --for DURATION] [--as EMAIL]", runLockdownStart},
		{"lockdown release", "release a lockdown: --org ID LOCKDOWN_ID [--as EMAIL]", runLockdownRelease},
		{"lockdown list", "list an organization's lockdowns, newest first: --org ID [--active] [--limit N]", runLockdownList},
	}
}

// Run runs the gatehouse command line args (without the program name).
// "--help" (or "-h", or "help" first) prints usage on stdout and returns
// nil, for the binary, for a command and for a group of commands ("org
// --help"); a command line that names no command returns a *UsageError
// after printing usage on stderr.
func Run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	e := &env{getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr, now: time.Now}
	ctx = gatehouse.WithActor(ctx, operator()) // --as replaces it (flags.act)
	if len(args) > 0 && args[0] == "help" {
		args = slices.Concat(args[1:], []string{"--help"})
	}
	if len(args) == 0 {
		printUsage(stderr)
		return usagef("no command given")
	}
	for _, c := range commands() {
		words := strings.Fields(c.name)
		if len(args) >= len(words) && strings.Join(args[:len(words)], " ") == c.name {
			e.args = args[len(words):]
			if err := c.run(ctx, e); !errors.Is(err, errHelpShown) {
				return inWords(err)
			}
			return nil
		}
	}
	helpAsked := slices.ContainsFunc(args, isHelpFlag)
	if group := groupCommands(args[0]); len(group) > 0 {
		if helpAsked {
			printGroupUsage(stdout, args[0], group)
			return nil
		}
		printGroupUsage(stderr, args[0], group)
		if len(args) == 1 {
			return usagef("%q needs a command; run 'gatehouse %s --help'", args[0], args[0])
		}
		return usagef("unknown command %q; run 'gatehouse %s --help'", strings.Join(args[:2], " "), args[0])
	}
	if helpAsked && strings.HasPrefix(args[0], "-") { // "--help", or "--db x --help"
		printUsage(stdout)
		return nil
	}
	printUsage(stderr)
	return usagef("unknown command %q; run 'gatehouse help'", args[0])
}

// withService parses f, opens (migrating) the database and runs fn with
// the service on it: for a command about records that exist, so a SQLite
// file that does not is an error naming it (openFound), never created.
func withService(ctx context.Context, f *flags, maxArgs int, fn func(svc *service.Service, args []string) error) error {
	return withOpenedService(ctx, f, maxArgs, openFound, fn)
}

// withNewService is withService for a command that may start a database
// (migrate, org create, bench seed): a missing SQLite file is created.
func withNewService(ctx context.Context, f *flags, maxArgs int, fn func(svc *service.Service, args []string) error) error {
	return withOpenedService(ctx, f, maxArgs, app.Open, fn)
}

// openFound is app.OpenFound with, for a missing file, how to name
// another one.
func openFound(ctx context.Context, dsn string, shards ...string) (*app.DB, error) {
	db, err := app.OpenFound(ctx, dsn, shards...)
	return db, missingHint(err)
}

// missingHint adds to the error of a database file that does not exist
// how to point the command at one, or make it.
func missingHint(err error) error {
	var missing *sqlite.MissingFileError
	if !errors.As(err, &missing) {
		return err
	}
	return fmt.Errorf("%w: give the database with --db PATH or GATEHOUSE_DB (gatehouse demo prints the line to paste: export GATEHOUSE_DB=…), or create one with gatehouse migrate --db PATH", err)
}

// withExistingService is withService for a command that only reads: the
// database must exist and be migrated already.
func withExistingService(ctx context.Context, f *flags, maxArgs int, fn func(svc *service.Service, args []string) error) error {
	return withOpenedService(ctx, f, maxArgs, func(ctx context.Context, dsn string, shards ...string) (*app.DB, error) {
		db, err := app.OpenExisting(ctx, dsn, shards...)
		return db, missingHint(err)
	}, fn)
}

func withOpenedService(ctx context.Context, f *flags, maxArgs int, open func(ctx context.Context, dsn string, shards ...string) (*app.DB, error),
	fn func(svc *service.Service, args []string) error) error {
	args, err := f.parse(maxArgs)
	if err != nil {
		return err
	}
	db, err := open(ctx, *f.db, f.shardList()...)
	if err != nil {
		return err
	}
	defer db.Close()
	return fn(db.Service(f.e.now), args)
}

// withOrgAnd runs fn for a change of one organization (--org, acting
// --as its user) and one positional argument, named arg in its usage,
// with the service open.
func withOrgAnd(ctx context.Context, e *env, name, arg string, fn func(ctx context.Context, f *flags, svc *service.Service, orgID uuid.UUID, value string) error) error {
	f := newFlags(e, name)
	org := f.String("org", "", "organization id")
	f.actor(asUsage)
	return withService(ctx, f, 1, func(svc *service.Service, args []string) error {
		orgID, err := parseID("org", *org)
		if err != nil {
			return err
		}
		if ctx, err = f.act(ctx, svc, orgID); err != nil {
			return err
		}
		if len(args) != 1 {
			return usagef("%s needs the %s", name, arg)
		}
		return fn(ctx, f, svc, orgID, args[0])
	})
}

// prompt reads a secret typed at the terminal in, without echo, after
// label on stderr: a user's password, a messaging key.
func prompt(e *env, in *os.File, label string) (string, error) {
	fmt.Fprint(e.stderr, label)
	b, err := term.ReadPassword(int(in.Fd()))
	fmt.Fprintln(e.stderr)
	return strings.TrimRight(string(b), "\r\n"), err
}

// jsonSyntax returns nil for one JSON value, or a *gatehouse.ValidationError
// of the whole input ("") that says where data stops being JSON, by line
// and column: a person editing a file needs the place, not the offset.
func jsonSyntax(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	var v json.RawMessage
	err := dec.Decode(&v)
	if err == nil {
		if _, err := dec.Token(); !errors.Is(err, io.EOF) {
			return gatehouse.Invalid("", "must be a single JSON value, with nothing after it")
		}
		return nil
	}
	var se *json.SyntaxError
	switch {
	case errors.Is(err, io.EOF):
		return gatehouse.Invalid("", "is empty: give one JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return gatehouse.Invalid("", "is not valid JSON: it ends before its last value does")
	case !errors.As(err, &se):
		return gatehouse.Invalid("", "is not valid JSON: %v", err)
	}
	off := min(max(int(se.Offset)-1, 0), len(data)) // the offending byte: Offset is just past it
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(data[:off], '\n') // the byte after the last newline is column 1
	return gatehouse.Invalid("", "is not valid JSON at line %d, column %d: %v", line, col, se)
}

// knownOrg reads --org and checks that the organization exists, so that
// a command about it says so rather than answering with an empty list.
func knownOrg(ctx context.Context, svc *service.Service, value string) (uuid.UUID, error) {
	orgID, err := parseID("org", value)
	if err != nil {
		return orgID, err
	}
	if _, err := svc.FindOrganization(ctx, orgID); err != nil {
		return orgID, fmt.Errorf("organization %s: %w", orgID, err)
	}
	return orgID, nil
}

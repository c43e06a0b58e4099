package cli

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"path/filepath"
	"strings"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/demo"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
)

// demoOutput is what demo prints with --json before it serves.
type demoOutput struct {
	Organization gatehouse.Organization `json:"organization"`
	Created      bool                   `json:"created"`
	Key          keyRecord              `json:"key"`
	// ReplacedKeys are the ids of the demo keys this run revoked.
	ReplacedKeys []string `json:"replacedKeys"`
	// Variables are the shell variables the curl lines use, but KEY, which
	// is Key.Key: the raw key is printed once.
	Variables map[string]string `json:"variables"`
	Curl      []string          `json:"curl"`
	// Unlock are the CLI lines that unlock the access point of
	// ACCESS_POINT_ID remotely and follow the command, as the dashboard
	// user.
	Unlock []string `json:"unlock"`
	// Policy are the CLI lines that show the policy of ACCESS_POINT_ID
	// and explain by it the attempt of EVENT_ID.
	Policy    []string   `json:"policy"`
	Dashboard demoSignIn `json:"dashboard"`
}

// demoSignIn is the dashboard account of the demo, with a password that
// is new on every run (like the key, it cannot be shown again).
type demoSignIn struct {
	URL      string `json:"url"`
	Email    string `json:"email"`
	Password string `json:"password"`
}

const demoEmail = "demo@gatehouse.test"

// demoKeyName names the demo's API key. A raw key cannot be shown twice,
// so every run makes a new one and revokes the active keys of this name in
// the demo organization: there is one demo key at a time.
const demoKeyName = "demo"

// demoAccount creates the demo's dashboard user once and gives it a fresh
// password on every run.
func demoAccount(ctx context.Context, svc *service.Service, org uuid.UUID) (string, error) {
	pw := rand.Text()[:20] // 100 random bits
	_, err := svc.SetUpUser(ctx, gatehouse.NewUser{OrgID: org, Email: demoEmail, Name: "Demo operator", Password: pw, Role: gatehouse.RoleAdmin})
	return pw, err
}

func runDemo(ctx context.Context, e *env) error {
	ctx = asServer(ctx)
	f := newFlags(e, "demo")
	s := addServeFlags(f)
	if err := s.check(f); err != nil {
		return err
	}
	// The addresses first: a port in use stops the demo before it has
	// created a database, an organization or a key.
	lns, err := s.listen()
	if err != nil {
		return err
	}
	if demoAllowsPrivateWebhooks(f, lns.api.Addr()) {
		*s.webhooksAllowPrivate = true
	}
	db, err := app.Open(ctx, *f.db, f.shardList()...)
	if err == nil {
		defer db.Close()
		err = prepareDemo(ctx, e, f, db, demoBase(*s.addr, lns.api.Addr()))
	}
	if err != nil {
		lns.close()
		return err
	}
	return serve(ctx, e, db, s, lns)
}

// prepareDemo seeds the demo organization once, replaces its key, sets up
// its dashboard account and prints all three, for a server at base.
func prepareDemo(ctx context.Context, e *env, f *flags, db *app.DB, base string) error {
	now := gatehouse.Truncate(e.now())
	org, created, err := db.SeedDemo(ctx, now, demo.DefaultEvents)
	if err != nil {
		return err
	}
	svc := db.Service(e.now)
	vars, _, player, err := demoVariables(ctx, svc, org.ID, base, now)
	if err != nil {
		return err
	}
	// The printed CLI lines work from any folder once the reader pastes
	// the file's absolute path (a postgres:// one is theirs to keep).
	if !app.IsPostgres(*f.db) {
		abs, err := filepath.Abs(app.SQLitePath(*f.db))
		if err != nil {
			return err
		}
		vars = append(vars, demoVariable{"GATEHOUSE_DB", abs})
	}
	examples := demoExamples(player)
	key, raw, replaced, err := replaceDemoKey(ctx, svc, org.ID, examples.scopes())
	if err != nil {
		return err
	}
	out := demoOutput{Organization: org, Created: created, Key: newKeyRecord(key, now), ReplacedKeys: []string{},
		Variables: map[string]string{}, Curl: examples.shell(), Unlock: demoUnlock(*f.db),
		Policy: demoPolicy(*f.db, player)}
	out.Key.Key = raw
	for _, r := range replaced {
		out.ReplacedKeys = append(out.ReplacedKeys, r.ID.String())
	}
	for _, v := range vars {
		out.Variables[v.name] = v.value
	}
	out.Dashboard = demoSignIn{URL: base + "/dashboard/", Email: demoEmail}
	if out.Dashboard.Password, err = demoAccount(ctx, svc, org.ID); err != nil {
		return err
	}
	if *f.json {
		return json.NewEncoder(e.stdout).Encode(out)
	}
	printDemo(e.stdout, out, key, replaced, vars)
	return nil
}

// printDemo writes demo's human output: the organization, the key as the
// shell variable KEY with the other variables, the examples and the
// dashboard sign-in.
func printDemo(w io.Writer, out demoOutput, key gatehouse.APIKey, replaced []gatehouse.APIKey, vars []demoVariable) {
	verb := "Created"
	if !out.Created {
		verb = "Reusing"
	}
	fmt.Fprintf(w, "%s the organization %q (%s).\n\n", verb, out.Organization.Name, out.Organization.ID)
	fmt.Fprintf(w, "Its API key %q (%s) is shown once, and only here.\n", key.Name, strings.ReplaceAll(gatehouse.JoinScopes(key.Scopes), ",", ", "))
	if len(replaced) > 0 {
		var prefixes []string
		for _, r := range replaced {
			prefixes = append(prefixes, r.Prefix+"…")
		}
		fmt.Fprintf(w, "It replaces the key of the previous run, %s, now revoked: there is one demo key at a time.\n", strings.Join(prefixes, ", "))
	}
	fmt.Fprintf(w, "Paste these variables into a shell (the README and the guides use the same names):\n\n  KEY=%s\n", out.Key.Key)
	for _, v := range vars {
		if v.name == "GATEHOUSE_DB" { // read by gatehouse itself: exported
			fmt.Fprintf(w, "  export %s=%s\n", v.name, shellQuote(v.value))
			continue
		}
		fmt.Fprintf(w, "  %s=%s\n", v.name, v.value)
	}
	fmt.Fprint(w, "\nthen try:\n\n")
	for _, c := range out.Curl {
		fmt.Fprintf(w, "  %s\n\n", strings.ReplaceAll(c, "\n", "\n  "))
	}
	fmt.Fprint(w, "Unlock the door of ACCESS_POINT_ID remotely, for every game server of its venue's universe, and follow the command:\n\n")
	for _, l := range out.Unlock {
		fmt.Fprintf(w, "  %s\n", l)
	}
	fmt.Fprint(w, "\n  It stays PENDING until a game server of the universe syncs (docs/guide/remote-unlock.md\n"+
		"  has the server's loop), and EXPIRED if none executes it within its ttl.\n\n")
	fmt.Fprint(w, "Every door has a policy, and the demo's attempts were decided by them. Show the policy of\n"+
		"ACCESS_POINT_ID and explain by it the attempt of EVENT_ID (docs/guide/rules-and-decisions.md):\n\n")
	for _, l := range out.Policy {
		fmt.Fprintf(w, "  %s\n", l)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Dashboard: %s\n  sign in as %s with the password %s (new on every run)\n\n",
		out.Dashboard.URL, out.Dashboard.Email, out.Dashboard.Password)
}

// demoUnlock are the CLI lines that unlock the demo's ACCESS_POINT_ID
// and follow the command, as the demo's dashboard user. They name the
// database only when it is a file other than the default: a PostgreSQL
// URL may hold a password, which is not printed.
func demoUnlock(db string) []string {
	cmd := demoCommand(db)
	return []string{
		cmd + ` command unlock --org "$ORG_ID" --access-point "$ACCESS_POINT_ID" --scope UNIVERSE --duration 30s --as ` + demoEmail,
		cmd + ` command list --org "$ORG_ID" --limit 5`,
	}
}

// demoCommand is how the demo's printed CLI lines start for the database
// db: a file is named by GATEHOUSE_DB, among the variables to paste; a
// postgres:// URL, which may hold a password, is the reader's to give.
func demoCommand(db string) string {
	if strings.Contains(db, "://") {
		return "GATEHOUSE_DB=... gatehouse"
	}
	return "gatehouse"
}

// shellQuote is s as one word of a POSIX shell: as it is when it holds
// nothing the shell would read, else in single quotes.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:@,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// demoPolicy are the CLI lines that show the policy of the demo's
// ACCESS_POINT_ID and explain by it the attempt EVENT_ID of player (decide
// --event: at its instant, as things stood then), with the attributes the
// demo's population gives the player (none for a player the demo did not
// make up).
func demoPolicy(db string, player string) []string {
	cmd := demoCommand(db)
	decide := cmd + ` decide --org "$ORG_ID" --event "$EVENT_ID"`
	for _, p := range demo.Population() {
		if p.PlatformUserID != player {
			continue
		}
		if b, err := json.Marshal(compactAttributes(p.Attributes)); err == nil && string(b) != "{}" {
			decide += " --attributes '" + string(b) + "'" // ids and ranks are digits: nothing to quote
		}
	}
	return []string{
		cmd + ` policy show "$ACCESS_POINT_ID"`,
		decide,
	}
}

// compactAttributes is a, leaving out what the player does not have.
func compactAttributes(a gatehouse.PlayerAttributes) map[string]any {
	m := map[string]any{}
	if len(a.Groups) > 0 {
		m["groups"] = a.Groups
	}
	if len(a.Gamepasses) > 0 {
		m["gamepasses"] = a.Gamepasses
	}
	if len(a.Badges) > 0 {
		m["badges"] = a.Badges
	}
	if a.Premium {
		m["premium"] = true
	}
	return m
}

// replaceDemoKey revokes the organization's active keys named demoKeyName
// and creates one with scopes. It returns the new key, its raw form (shown
// once by the caller) and the keys it revoked. The revocations come first:
// a failure leaves no demo key rather than two.
func replaceDemoKey(ctx context.Context, svc *service.Service, org uuid.UUID, scopes []gatehouse.Scope) (gatehouse.APIKey, string, []gatehouse.APIKey, error) {
	keys, err := svc.ListAPIKeys(ctx, org)
	if err != nil {
		return gatehouse.APIKey{}, "", nil, err
	}
	var revoked []gatehouse.APIKey
	for _, k := range keys {
		if k.Name != demoKeyName || k.Status(svc.Now()) != "active" {
			continue
		}
		r, err := svc.RevokeAPIKey(ctx, org, k.ID)
		if err != nil {
			return gatehouse.APIKey{}, "", nil, fmt.Errorf("revoking the previous demo key %s: %w", k.Prefix, err)
		}
		revoked = append(revoked, r)
	}
	key, raw, err := svc.CreateAPIKey(ctx, gatehouse.NewAPIKey{OrgID: org, Name: demoKeyName, Scopes: scopes})
	return key, raw, revoked, err
}

// demoAllowsPrivateWebhooks reports whether the demo lets webhooks and
// alerts reach loopback and private addresses, over http too: when it
// listens on a loopback address and neither --webhooks-allow-private nor
// GATEHOUSE_WEBHOOKS_ALLOW_PRIVATE says otherwise. Only the machine's own
// users reach such a demo, and they reach those addresses already; so a
// receiver they start beside it (the webhook and alert guides do) gets
// its deliveries, as it would from a server run with the flag.
func demoAllowsPrivateWebhooks(f *flags, bound net.Addr) bool {
	if f.e.getenv("GATEHOUSE_WEBHOOKS_ALLOW_PRIVATE") != "" {
		return false
	}
	set := false
	f.Visit(func(fl *flag.Flag) { set = set || fl.Name == "webhooks-allow-private" })
	if set {
		return false
	}
	a, err := netip.ParseAddrPort(bound.String())
	return err == nil && a.Addr().Unmap().IsLoopback()
}

// demoBase is the URL of the demo's server: the host of --addr (localhost
// for a wildcard) and the port actually bound, which "--addr :0" leaves to
// the system.
func demoBase(addr string, bound net.Addr) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" || host == "0.0.0.0" || host == "::" {
		host = "localhost"
	}
	_, port, _ := net.SplitHostPort(bound.String())
	return "http://" + net.JoinHostPort(host, port)
}

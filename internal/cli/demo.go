package cli

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/demo"
	"github.com/google/uuid"
)

// demoOutput is what demo prints with --json before it serves.
type demoOutput struct {
	Organization gatehouse.Organization `json:"organization"`
	Created      bool                   `json:"created"`
	Key          keyRecord              `json:"key"`
	Curl         []string               `json:"curl"`
	Dashboard    demoSignIn             `json:"dashboard"`
}

// demoSignIn is the dashboard account of the demo, with a password that
// is new on every run (like the key, it cannot be shown again).
type demoSignIn struct {
	URL      string `json:"url"`
	Email    string `json:"email"`
	Password string `json:"password"`
}

const demoEmail = "demo@gatehouse.test"

// demoAccount creates the demo's dashboard user once and gives it a fresh
// password on every run.
func demoAccount(ctx context.Context, svc *gatehouse.Service, org uuid.UUID) (string, error) {
	pw := rand.Text()[:20] // 100 random bits
	_, err := svc.SetUpUser(ctx, gatehouse.NewUser{OrgID: org, Email: demoEmail, Name: "Demo operator", Password: pw, Role: gatehouse.RoleAdmin})
	return pw, err
}

func runDemo(ctx context.Context, e *env) error {
	f := newFlags(e, "demo")
	s := addServeFlags(f)
	db, err := openServing(ctx, f, s)
	if err != nil {
		return err
	}
	defer db.Close()

	now := gatehouse.Truncate(e.now())
	org, created, err := db.SeedDemo(ctx, now, demo.DefaultEvents)
	if err != nil {
		return err
	}
	svc := db.Service(e.now)
	key, raw, err := svc.CreateAPIKey(ctx, gatehouse.NewAPIKey{OrgID: org.ID, Name: "demo",
		Scopes: []gatehouse.Scope{gatehouse.ScopeEventsRead, gatehouse.ScopeLocationsRead}})
	if err != nil {
		return err
	}
	out := demoOutput{Organization: org, Created: created, Key: newKeyRecord(key, now)}
	out.Key.Key = raw
	out.Curl, err = demoCurls(ctx, svc, org, raw, baseURL(*s.addr), now)
	if err != nil {
		return err
	}
	out.Dashboard = demoSignIn{URL: baseURL(*s.addr) + "/dashboard/", Email: demoEmail}
	if out.Dashboard.Password, err = demoAccount(ctx, svc, org.ID); err != nil {
		return err
	}
	if *f.json {
		if err := json.NewEncoder(e.stdout).Encode(out); err != nil {
			return err
		}
	} else {
		verb := "Created"
		if !created {
			verb = "Reusing"
		}
		fmt.Fprintf(e.stdout, "%s the organization %q (%s).\n\nAPI key (events:read, locations:read), shown once:\n\n  %s\n\nTry:\n\n", verb, org.Name, org.ID, raw)
		for _, c := range out.Curl {
			fmt.Fprintf(e.stdout, "  %s\n\n", c)
		}
		fmt.Fprintf(e.stdout, "Dashboard: %s\n  sign in as %s with the password %s (new on every run)\n\n",
			out.Dashboard.URL, out.Dashboard.Email, out.Dashboard.Password)
	}
	return serve(ctx, e, db, s)
}

// demoCurls are ready-to-paste requests for the main filters, with ids
// from the demo data.
func demoCurls(ctx context.Context, svc *gatehouse.Service, org gatehouse.Organization, key, base string, now time.Time) ([]string, error) {
	locs, _, err := svc.ListLocations(ctx, org.ID, 10, nil)
	if err != nil {
		return nil, err
	}
	page, err := svc.ListEvents(ctx, org.ID, gatehouse.EventFilter{Limit: 1, Allowed: ptr(gatehouse.Denied)})
	if err != nil {
		return nil, err
	}
	user := "123456789"
	if len(page.Events) > 0 && page.Events[0].PlatformUserID != nil {
		user = *page.Events[0].PlatformUserID
	}
	queries := []string{
		"",
		"allowed=denied",
		"reason=OUTSIDE_SCHEDULE",
		"type=REMOTE_UNLOCK&scope=PLAYER",
		"platformUserId=" + url.QueryEscape(user),
		"q=vip",
		"dateFrom=" + now.AddDate(0, 0, -7).Format("2006-01-02") + "&dateTo=" + now.AddDate(0, 0, 1).Format("2006-01-02"),
		"limit=2",
	}
	if len(locs) > 0 {
		queries = append(queries, "locationId="+locs[0].ID.String())
	}
	var curls []string
	for _, q := range queries {
		u := base + "/api/consumer/v1/events"
		if q != "" {
			u += "?" + q
		}
		curls = append(curls, fmt.Sprintf("curl -s -H 'Authorization: Bearer %s' '%s'", key, u))
	}
	curls = append(curls,
		fmt.Sprintf("curl -s -H 'Authorization: Bearer %s' '%s/api/consumer/v1/events?limit=2&cursor=NEXT_CURSOR_FROM_THE_PREVIOUS_PAGE'", key, base),
		fmt.Sprintf("curl -s -H 'Authorization: Bearer %s' '%s/api/consumer/v1/locations'", key, base))
	return curls, nil
}

func baseURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

func ptr[T any](v T) *T { return &v }

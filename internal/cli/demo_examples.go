package cli

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/google/uuid"
)

// demoVariable is a shell variable the demo prints for its curl lines and
// the guides' commands. The names are those of the README and the guides
// (KEY, API, ORG_ID, LOCATION_ID, ACCESS_POINT_ID, EVENT_ID, SINCE), so
// that their examples run in the same shell.
type demoVariable struct{ name, value string }

// demoVariables are the variables of the curl lines but KEY, which the
// caller prints: the API at base, the organization's id, and the ids of
// its newest denied attempt, that attempt's access point and location. ev
// is that attempt and player its platform user.
func demoVariables(ctx context.Context, svc *service.Service, org uuid.UUID, base string, now time.Time) (vars []demoVariable, ev gatehouse.Event, player string, err error) {
	ev, err = newestEvent(ctx, svc, org, gatehouse.EventFilter{Allowed: ptr(gatehouse.Denied)})
	if errors.Is(err, gatehouse.ErrNotFound) { // a demo organization whose seeding was cut short
		ev, err = newestEvent(ctx, svc, org, gatehouse.EventFilter{})
	}
	if err != nil {
		return nil, ev, "", err
	}
	// The examples are pasted into a shell: an id anyone with the demo key
	// could have recorded goes into them only when it is digits, as the
	// platform's user ids are.
	player = "123456789"
	if p := ev.PlatformUserID; p != nil && *p != "" && strings.Trim(*p, "0123456789") == "" {
		player = *p
	}
	return []demoVariable{
		{"API", base + "/api/consumer/v1"},
		{"ORG_ID", org.String()},
		{"LOCATION_ID", ev.Location.ID.String()},
		{"ACCESS_POINT_ID", ev.AccessPoint.ID.String()},
		{"EVENT_ID", ev.ID.String()},
		{"SINCE", now.AddDate(0, 0, -7).Format(time.DateOnly)},
	}, ev, player, nil
}

// newestEvent returns the organization's newest event matching f, or
// ErrNotFound.
func newestEvent(ctx context.Context, svc *service.Service, org uuid.UUID, f gatehouse.EventFilter) (gatehouse.Event, error) {
	f.Limit = 1
	page, err := svc.ListEvents(ctx, org, f)
	if err != nil {
		return gatehouse.Event{}, err
	}
	if len(page.Events) == 0 {
		return gatehouse.Event{}, fmt.Errorf("the demo organization has no events: %w", gatehouse.ErrNotFound)
	}
	return page.Events[0], nil
}

// demoExample is a request the demo prints: shell lines over the demo's
// variables, and the scope the request needs.
type demoExample struct {
	scope gatehouse.Scope
	shell string
}

type demoExampleList []demoExample

// curlWithKey starts every example: the key is $KEY, printed once above
// the examples rather than in each of them.
const curlWithKey = `curl -s -H "Authorization: Bearer $KEY"`

// demoExamples are the requests the demo prints: the filters of GET
// /events, a second page, the locations, and recording an attempt of
// player (a platform user id, digits only).
func demoExamples(player string) demoExampleList {
	var ex demoExampleList
	for _, q := range []string{
		"",
		"?allowed=denied",
		"?reason=OUTSIDE_SCHEDULE",
		"?type=REMOTE_UNLOCK&scope=PLAYER",
		"?platformUserId=" + player,
		"?q=vip",
		"?q=$EVENT_ID",
		"?dateFrom=$SINCE",
		"?locationId=$LOCATION_ID",
		"?accessPointId=$ACCESS_POINT_ID",
	} {
		ex = append(ex, demoExample{gatehouse.ScopeEventsRead, fmt.Sprintf(`%s "$API/events%s"`, curlWithKey, q)})
	}
	// The next page: the cursor is the nextCursor of the page before.
	ex = append(ex, demoExample{gatehouse.ScopeEventsRead,
		`NEXT_CURSOR=$(` + curlWithKey + ` "$API/events?limit=2" | grep -o '"nextCursor":"[^"]*"' | cut -d'"' -f4)` + "\n" +
			curlWithKey + ` "$API/events?limit=2&cursor=$NEXT_CURSOR"`})
	ex = append(ex, demoExample{gatehouse.ScopeLocationsRead, curlWithKey + ` "$API/locations"`})
	ex = append(ex, demoExample{gatehouse.ScopeEventsWrite, curlWithKey + ` -H 'Content-Type: application/json' "$API/events" -d '{"events": [` +
		`{"type": "ACCESS_DENIED", "reason": "OUTSIDE_SCHEDULE", "occurredAt": "'$(date -u +%FT%TZ)'", ` +
		`"accessPointId": "'$ACCESS_POINT_ID'", "platformUserId": "` + player + `"}]}'`})
	return ex
}

// scopes are the scopes the examples need, in documentation order: the
// demo key carries these and no others.
func (l demoExampleList) scopes() []gatehouse.Scope {
	var out []gatehouse.Scope
	for _, sc := range gatehouse.Scopes {
		if slices.ContainsFunc(l, func(e demoExample) bool { return e.scope == sc }) {
			out = append(out, sc)
		}
	}
	return out
}

func (l demoExampleList) shell() []string {
	out := make([]string, len(l))
	for i, e := range l {
		out[i] = e.shell
	}
	return out
}

func ptr[T any](v T) *T { return &v }

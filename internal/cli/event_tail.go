package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
)

// tailFlags are event tail's filters: each flag and the feed's query
// parameter it sets (GET /events/feed reads the same, ParseFeedQuery
// checks both).
var tailFlags = []struct{ flag, param, usage string }{
	{"access-point", "accessPointId", "only this access point's events"},
	{"location", "locationId", "only the events of this location's access points"},
	{"type", "type", "only these event types, comma-separated"},
	{"allowed", "allowed", "only granted or denied attempts"},
	{"platform-user-id", "platformUserId", "only this player's events"},
	{"reason", "reason", "only events with this reason, e.g. OUTSIDE_SCHEDULE"},
	{"scope", "scope", "only remote unlocks of this scope: UNIVERSE, SERVER or PLAYER"},
	{"after", "after", "start after this feed cursor (default: the feed's start, or --cursor-file's cursor)"},
}

// tailPage is how many events event tail reads at once.
const tailPage = gatehouse.MaxLimit

// runEventTail follows an organization's feed (GET /events/feed's) and
// writes each event as one JSON line on stdout: every event once, in the
// order stored, however late it arrived. With --cursor-file it starts
// after the cursor the file holds and writes there the cursor of every
// page it has written out, so that a bridge to a SIEM restarted after a
// crash repeats at most one page.
func runEventTail(ctx context.Context, e *env) error {
	f := newFlags(e, "event tail")
	org := f.String("org", "", "organization id")
	values := make([]*string, len(tailFlags))
	for i, t := range tailFlags {
		values[i] = f.String(t.flag, "", t.usage)
	}
	cursorFile := f.String("cursor-file", "", "read the cursor to start after from `FILE` when it exists; write the cursor of each page written out to it")
	poll := f.duration("poll", time.Second, "how often to ask again once caught up")
	follow := f.Bool("follow", true, "keep following once caught up (--follow=false stops there)")
	return withService(ctx, f, 0, func(svc *service.Service, _ []string) error {
		orgID, err := parseID("org", *org)
		if err != nil {
			return err
		}
		if *poll <= 0 {
			return usagef("--poll must be positive")
		}
		v := url.Values{"limit": {strconv.Itoa(tailPage)}}
		for i, t := range tailFlags {
			if *values[i] != "" {
				v.Set(t.param, *values[i])
			}
		}
		if *cursorFile != "" && *values[len(values)-1] == "" {
			b, err := os.ReadFile(*cursorFile)
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			if c := strings.TrimSpace(string(b)); c != "" {
				v.Set("after", c)
			}
		}
		q, err := svc.ReadFeedQuery(ctx, orgID, v)
		if ve := flagIssues(err); ve != nil {
			return ve
		}
		out := bufio.NewWriter(e.stdout)
		enc := json.NewEncoder(out)
		for {
			page, err := svc.ReadFeed(ctx, orgID, q)
			if errors.Is(err, context.Canceled) {
				return nil
			}
			if err != nil {
				return err
			}
			for _, ev := range page.Events {
				if err := enc.Encode(ev); err != nil {
					return err
				}
			}
			if err := out.Flush(); err != nil {
				return err
			}
			if len(page.Events) > 0 && *cursorFile != "" {
				if err := writeCursor(*cursorFile, svc.FeedCursor(orgID, page.Next)); err != nil {
					return err
				}
			}
			q.After = page.Next
			if len(page.Events) == tailPage {
				continue
			}
			if !*follow {
				return nil
			}
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(*poll):
			}
		}
	})
}

// writeCursor replaces the cursor file's content whole (a temporary file
// renamed over it), so that a crash leaves the old cursor or the new one.
func writeCursor(path, cursor string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	_, err = tmp.WriteString(cursor + "\n")
	if err == nil {
		err = tmp.Sync() // on disk before it replaces the old one: a power cut must not leave it empty
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
)

// runLocationLive prints a location as operators watch it now (docs/api.md,
// "GET /locations/{id}/live"): each door's mode, unlocks and lockdown, and
// the live game servers of its universe with their job ids.
func runLocationLive(ctx context.Context, e *env) error {
	f := newFlags(e, "location live")
	return withExistingService(ctx, f, 1, func(svc *service.Service, args []string) error {
		id, err := positionalID(args, "location live LOCATION_ID", "LOCATION_ID")
		if err != nil {
			return err
		}
		orgID, err := svc.OrgOfLocation(ctx, id)
		if err != nil {
			return err
		}
		live, err := svc.LocationLive(ctx, orgID, id)
		if err != nil {
			return err
		}
		if *f.json {
			return f.print(live, "")
		}
		universe := "no universe: no server is listed"
		if live.UniverseID != nil {
			universe = "universe " + *live.UniverseID
		}
		fmt.Fprintf(e.stdout, "%s  %s  %s, at %s\n", live.ID, live.Name, universe, gatehouse.FormatTime(time.Time(live.At)))
		for _, ap := range live.AccessPoints {
			fmt.Fprintf(e.stdout, "  door %s  %-20s %s\n", ap.ID, ap.Name, doorState(ap))
		}
		fmt.Fprintln(e.stdout, servers(live.ServerCount))
		for _, s := range live.Servers {
			fmt.Fprintf(e.stdout, "  server %s  %d players, seen %s\n", s.JobID, s.Players, gatehouse.FormatTime(time.Time(s.SeenAt)))
		}
		return nil
	})
}

// doorState says a door's mode, lockdown and unlocks in a line.
func doorState(ap gatehouse.LiveAccessPoint) string {
	parts := []string{"no policy (fails closed)"}
	if ap.Mode != nil {
		parts[0] = string(*ap.Mode)
	}
	if ap.Lockdown != nil {
		parts = append(parts, "LOCKED DOWN")
	}
	for _, u := range ap.Unlocks {
		who := "the universe"
		switch u.Scope {
		case gatehouse.ScopeServer:
			who = "server " + u.ServerJobID
		case gatehouse.ScopePlayer:
			who = "player " + u.PlatformUserID
		}
		parts = append(parts, fmt.Sprintf("unlocked for %s until %s", who, gatehouse.FormatTime(time.Time(u.Until))))
	}
	return strings.Join(parts, ", ")
}

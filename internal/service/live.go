package service

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// LocationLive returns the location as an operator watches it now: each
// access point's policy mode, the remote unlocks and the lockdown in
// force there, as a decision now counts them, and the game servers live
// in its universe, the most players first ([gatehouse.LocationLive]).
// Archived access points are left out.
//
// Errors: [gatehouse.ErrNotFound] for an unknown location or one of
// another organization.
func (s *Service) LocationLive(ctx context.Context, orgID, locationID uuid.UUID) (gatehouse.LocationLive, error) {
	loc, err := s.FindLocation(ctx, orgID, locationID)
	if err != nil {
		return gatehouse.LocationLive{}, err
	}
	now := s.Now()
	live := gatehouse.LocationLive{ID: loc.ID, Name: loc.Name, UniverseID: loc.UniverseID, At: gatehouse.Time(now),
		AccessPoints: make([]gatehouse.LiveAccessPoint, 0, len(loc.AccessPoints)), Servers: []gatehouse.LiveServer{}}
	for _, ap := range loc.AccessPoints {
		if ap.ArchivedAt != nil {
			continue // hidden, as from every list
		}
		dc, err := s.readDecisionContext(ctx, orgID, ap.ID, now)
		if err != nil {
			return gatehouse.LocationLive{}, err
		}
		door := gatehouse.LiveAccessPoint{ID: ap.ID, Name: ap.Name}
		if dc.Policy != nil {
			door.Mode = &dc.Policy.Mode
		}
		door.Unlocks, door.Lockdown = gatehouse.InForce(dc.Unlocks, dc.Lockdowns, now)
		live.AccessPoints = append(live.AccessPoints, door)
	}
	if loc.UniverseID == nil {
		return live, nil
	}
	servers, err := s.store.LiveServers(ctx, orgID, *loc.UniverseID, now.Add(-gatehouse.LiveWindow), nil)
	if err != nil {
		return gatehouse.LocationLive{}, err
	}
	slices.SortFunc(servers, func(a, b gatehouse.GameServer) int {
		return cmp.Or(cmp.Compare(len(b.Players), len(a.Players)), strings.Compare(a.JobID, b.JobID))
	})
	live.ServerCount = len(servers)
	for _, g := range servers[:min(len(servers), gatehouse.MaxLiveServers)] {
		live.Servers = append(live.Servers, gatehouse.LiveServer{JobID: g.JobID, PlaceID: g.PlaceID, Players: len(g.Players),
			StartedAt: gatehouse.Time(g.StartedAt), SeenAt: gatehouse.Time(g.SeenAt)})
	}
	return live, nil
}

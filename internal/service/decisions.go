package service

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// Decide decides whether a player passes one of the organization's access
// points, by its current policy, the remote unlocks active for it and the
// player's grants running then (docs/api.md, "POST /decisions"). With r.Record, it stores the decision
// as an ACCESS_GRANTED or ACCESS_DENIED event before answering. At
// another instant (r.At) everything is as it stood then: the policy
// version in force, the unlocks issued by then and not yet ended, the
// lockdowns and grants running. An access
// point without a policy fails closed ([gatehouse.Decide] of a nil
// policy).
//
// Recording is for game servers (API keys) and the operator's CLI: a
// dashboard user may only test a decision
// ([gatehouse.PermTestDecisions]), which records nothing. r.At decides at
// another instant and excludes Record, since a recorded event happens now.
//
// Errors:
//   - a [*gatehouse.ValidationError] naming every bad field;
//   - [gatehouse.ErrNotFound] for an unknown access point or one of another
//     organization, never a decision.
func (s *Service) Decide(ctx context.Context, orgID uuid.UUID, r gatehouse.DecisionRequest) (gatehouse.DecisionResult, error) {
	var reach gatehouse.Reach
	if a := gatehouse.ActorFrom(ctx); a.Type == gatehouse.ActorUser || !a.Reach.Whole() {
		switch {
		case r.Record && a.Type == gatehouse.ActorUser:
			return gatehouse.DecisionResult{}, gatehouse.ErrForbidden
		case r.Record: // a limited key: recording writes events, as only the whole organization's keys do
			return gatehouse.DecisionResult{}, gatehouse.ErrOutsideReach
		}
		var err error
		if reach, err = gatehouse.AuthorizeIn(ctx, orgID, gatehouse.PermTestDecisions); err != nil {
			return gatehouse.DecisionResult{}, err
		}
	}
	if err := r.Check(); err != nil {
		return gatehouse.DecisionResult{}, err
	}
	if err := s.accessPointIn(ctx, orgID, r.AccessPointID, reach); err != nil {
		return gatehouse.DecisionResult{}, err
	}
	now := s.Now()
	at := now
	if r.At != nil {
		at = time.Time(*r.At)
	}
	dc, err := s.decisionContext(ctx, orgID, r.AccessPointID, at, r.At == nil)
	if err != nil {
		return gatehouse.DecisionResult{}, err
	}
	policy, err := s.compiled.get(r.AccessPointID, dc.Policy)
	if err != nil {
		return gatehouse.DecisionResult{}, err
	}
	if r.At != nil && !r.CurrentPolicy {
		// An explanation decides by the version in force then, compiled
		// apart: the cache keeps the current one for the live decisions.
		then, err := s.policyAt(ctx, orgID, r.AccessPointID, dc.Policy, at)
		if err != nil {
			return gatehouse.DecisionResult{}, err
		}
		if then != dc.Policy {
			if dc.Policy, policy = then, nil; then != nil {
				if policy, err = then.Compile(); err != nil {
					return gatehouse.DecisionResult{}, err
				}
			}
		}
	}
	grants, err := s.runningGrants(ctx, orgID, dc, r.PlatformUserID, at, r.At == nil)
	if err != nil {
		return gatehouse.DecisionResult{}, err
	}
	in := r.DecisionInput
	in.Unlocks, in.Lockdowns, in.Grants = dc.Unlocks, dc.Lockdowns, slices.Concat(dc.Grants, grants)
	res := gatehouse.DecisionResult{Decision: gatehouse.Decide(policy, in, at), AccessPoint: dc.AccessPoint, Location: dc.Location, At: gatehouse.Time(at)}
	if dc.Policy != nil {
		v := dc.Policy.Version
		res.PolicyVersion = &v
	}
	if !r.Record {
		return res, nil
	}
	e := decisionEvent(r, res.Decision, now)
	if err := s.recorder.record(ctx, orgID, e); err != nil {
		return gatehouse.DecisionResult{}, err
	}
	res.EventID = &e.ID
	return res, nil
}

// decisionContext is what deciding for the access point at at needs.
// Decisions made now read it at most once per decisionContextFresh per
// access point on this instance: a busy door asks for thousands of
// decisions a second, and each would otherwise read the database before
// its own write. A change to it is seen:
//   - at once when made on this instance: a policy, a command issued,
//     cancelled or answered, a lockdown started or released
//     (decisionContexts.forget);
//   - within decisionContextFresh when made on another instance.
//
// The unlocks it holds are filtered again at each decision's instant
// ([gatehouse.Decide] keeps those whose until is after it), so an unlock
// still ends on time.
func (s *Service) decisionContext(ctx context.Context, orgID, accessPointID uuid.UUID, at time.Time, now bool) (gatehouse.DecisionContext, error) {
	if !now {
		return s.readDecisionContext(ctx, orgID, accessPointID, at)
	}
	if dc, ok := s.decisionContexts.get(orgID, accessPointID, time.Now()); ok {
		return dc, nil
	}
	dc, err := s.readDecisionContext(ctx, orgID, accessPointID, at)
	if err == nil {
		s.decisionContexts.put(orgID, accessPointID, dc, time.Now())
	}
	return dc, err
}

// readDecisionContext reads the decision context of the access point at
// at with the lockdowns that cover it then.
func (s *Service) readDecisionContext(ctx context.Context, orgID, accessPointID uuid.UUID, at time.Time) (gatehouse.DecisionContext, error) {
	dc, err := s.store.FindDecisionContext(ctx, orgID, accessPointID, at)
	if err != nil {
		return dc, err
	}
	dc.Lockdowns, err = s.lockdownSpans(ctx, orgID, dc.Location.ID, dc.UniverseID, at)
	return dc, err
}

// wake tells this instance that commands or grants changed: its waiting
// syncs wake, and its decisions read the organization's unlocks and
// whether it holds grants again (all organizations' for the zero
// [gatehouse.Wake], "anything may have changed"). Commands issued or cancelled on any instance reach decisions
// as fast as they reach syncs.
func (s *Service) wake(w gatehouse.Wake) {
	if w.OrgID == uuid.Nil {
		s.decisionContexts.forgetAll()
	} else {
		s.decisionContexts.forget(w.OrgID)
	}
	s.keptGrants.forget(w.OrgID)
	s.wakes.Wake(w)
}

// decisionContextFresh is how long an instance decides from a decision
// context it read.
const decisionContextFresh = time.Second

// maxDecisionContexts bounds the contexts an instance keeps: past it,
// it starts again empty.
const maxDecisionContexts = 10_000

// decisionContexts keeps the decision contexts read lately, by
// organization and access point.
type decisionContexts struct {
	mu sync.Mutex
	m  map[uuid.UUID]map[uuid.UUID]decisionContextSeen
	n  int
}

type decisionContextSeen struct {
	dc gatehouse.DecisionContext
	at time.Time
}

func (c *decisionContexts) get(orgID, accessPointID uuid.UUID, now time.Time) (gatehouse.DecisionContext, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen, ok := c.m[orgID][accessPointID]
	if !ok || now.Sub(seen.at) >= decisionContextFresh {
		return gatehouse.DecisionContext{}, false
	}
	return seen.dc, true
}

func (c *decisionContexts) put(orgID, accessPointID uuid.UUID, dc gatehouse.DecisionContext, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || c.n >= maxDecisionContexts {
		c.m, c.n = map[uuid.UUID]map[uuid.UUID]decisionContextSeen{}, 0
	}
	if c.m[orgID] == nil {
		c.m[orgID] = map[uuid.UUID]decisionContextSeen{}
	}
	if _, ok := c.m[orgID][accessPointID]; !ok {
		c.n++
	}
	c.m[orgID][accessPointID] = decisionContextSeen{dc, now}
}

// forget drops the organization's contexts: one of its policies or
// commands changed.
func (c *decisionContexts) forget(orgID uuid.UUID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n -= len(c.m[orgID])
	delete(c.m, orgID)
}

// decisionEvent is the event that records decision d of r at now.
func decisionEvent(r gatehouse.DecisionRequest, d gatehouse.Decision, now time.Time) gatehouse.NewEvent {
	e := gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessDenied, OccurredAt: now, AccessPointID: r.AccessPointID,
		Allowed: &d.Allowed, Reason: &d.Reason, PlatformUserID: &r.PlatformUserID}
	if d.Allowed == gatehouse.Granted {
		e.Type = gatehouse.EventAccessGranted
	}
	if r.ServerJobID != "" {
		e.ServerJobID = &r.ServerJobID
	}
	if r.PlatformUserName != "" {
		e.PlatformUserName = &r.PlatformUserName
	}
	return e
}

// forgetAll drops every context.
func (c *decisionContexts) forgetAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m, c.n = nil, 0
}

// Package storetest is the one definition of how a gatehouse.Store
// behaves. Every implementation runs Run in its tests; a behaviour that is
// not checked here is not promised.
package storetest

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// Opener returns a fresh, migrated, empty store for one test, and the
// address of its clock so the suite can set time.
type Opener func(t *testing.T) (gatehouse.Store, *func() time.Time)

// Run runs the whole suite, each test on its own store.
func Run(t *testing.T, open Opener) {
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, *fixture)
	}{
		{"Organizations", testOrganizations},
		{"APIKeys", testAPIKeys},
		{"APIKeyRate", testAPIKeyRate},
		{"CountAPIKeysExpiring", testCountAPIKeysExpiring},
		{"Locations", testLocations},
		{"ListLocationsPages", testListLocationsPages},
		{"RenameAccessPoint", testRenameAccessPoint},
		{"MoveAccessPoint", testMoveAccessPoint},
		{"Archive", testArchive},
		{"DeleteAccessPoint", testDeleteAccessPoint},
		{"DeleteLocation", testDeleteLocation},
		{"DeleteRacesIngest", testDeleteRacesIngest},
		{"Users", testUsers},
		{"UserRoles", testUserRoles},
		{"Ingest", testIngest},
		{"IngestIsAllOrNothing", testIngestAllOrNothing},
		{"IngestBatchSizes", testIngestBatchSizes},
		{"FeedExactlyOnce", testFeedExactlyOnce},
		{"CountFeed", testCountFeed},
		{"Commands", testCommands},
		{"MessagingKeys", testMessagingKeys},
		{"EventFilters", testEventFilters},
		{"EventsWithin", testEventsWithin},
		{"SearchQ", testSearchQ},
		{"SearchFoldsCase", testSearchFoldsCase},
		{"SearchManyTermsBudget", testSearchManyTermsBudget},
		{"SearchServerJobs", testSearchServerJobs},
		{"FindEventsExactID", testFindEventsExactID},
		{"Keyset", testKeyset},
		{"Isolation", testIsolation},
		{"Secret", testSecret},
		{"Sessions", testSessions},
		{"SetUserPassword", testSetUserPassword},
		{"UserTimeZone", testUserTimeZone},
		{"SecondFactors", testSecondFactors},
		{"SessionDevices", testSessionDevices},
		{"Invitations", testInvitations},
		{"ReachStored", testReachStored},
		{"Oracle", testOracle},
		{"AuditAppend", testAuditAppend},
		{"AuditFailedChange", testAuditFailedChange},
		{"AuditPages", testAuditPages},
		{"AuditAppendOnly", testAuditAppendOnly},
		{"LocationUniverse", testLocationUniverse},
		{"UniverseBounds", testUniverseBounds},
		{"CreateCommand", testCreateCommand},
		{"CreateCommandTenant", testCreateCommandTenant},
		{"CommandIdempotency", testCommandIdempotency},
		{"FindCommand", testFindCommand},
		{"ListCommands", testListCommands},
		{"CancelCommand", testCancelCommand},
		{"StatusMovesForward", testStatusMovesForward},
		{"Heartbeat", testHeartbeat},
		{"ServerCaps", testServerCaps},
		{"LiveServers", testLiveServers},
		{"AckCommands", testAckCommands},
		{"TakeCommands", testTakeCommands},
		{"TakeAfterForgotten", testTakeAfterForgotten},
		{"TakeJoined", testTakeJoined},
		{"TakeRelock", testTakeRelock},
		{"TakeBounded", testTakeBounded},
		{"TakeCommandsBatchOfOne", batchedTakes(testTakeCommands)},
		{"TakeAfterForgottenBatchOfOne", batchedTakes(testTakeAfterForgotten)},
		{"TakeJoinedBatchOfOne", batchedTakes(testTakeJoined)},
		{"TakeBoundedBatchOfOne", batchedTakes(testTakeBounded)},
		{"TakeCommandsBatch", testTakeCommandsBatch},
		{"CommandCounts", testCommandCounts},
		{"SweepCommands", testSweepCommands},
		{"WatchCommands", testWatchCommands},
		{"TryLease", testTryLease},
		{"PolicyVersions", testPolicyVersions},
		{"PolicyTenant", testPolicyTenant},
		{"PolicySet", testPolicySet},
		{"DecisionContext", testDecisionContext},
		{"ConcurrentPolicyPuts", testConcurrentPolicyPuts},
		{"Webhooks", testWebhooks},
		{"WebhookClaims", testWebhookClaims},
		{"WebhookClaimsShared", testWebhookClaimsShared},
		{"CommandChanges", testCommandChanges},
		{"ErasureOracle", testErasureOracle},
		{"ErasureCommands", testErasureCommands},
		{"DeletionKeepsPositions", testDeletionKeepsPositions},
		{"Retention", testRetention},
		{"ErasureIntegration", testErasureIntegration},
		{"ErasureClaims", testErasureClaims},
		{"RetentionCommands", testRetentionCommands},
		{"ErasureServers", testErasureServers},
		{"FailuresNameTheirMethod", testFailuresNameTheirMethod},
		{"AlertRules", testAlertRules},
		{"AlertEvaluations", testAlertEvaluations},
		{"AuditAlerts", testAuditAlerts},
		{"AlertDeliveries", testAlertDeliveries},
		{"Insights", testInsights},
		{"InsightsCountUnlocks", testInsightsCountUnlocks},
		{"InsightsRollWhileIngesting", testInsightsRollWhileIngesting},
		{"InsightsPlayerLevels", testInsightsPlayerLevels},
		{"Grants", testGrants},
		{"GrantReceipts", testGrantReceipts},
		{"RunningGrants", testRunningGrants},
		{"LiveGrants", testLiveGrants},
		{"PlayerServers", testPlayerServers},
		{"Lockdowns", testLockdowns},
		{"LockdownEndsUnlocks", testLockdownEndsUnlocks},
		{"ExpireLockdowns", testExpireLockdowns},
		{"CommandsWithin", testCommandsWithin},
		{"GrantsWithin", testGrantsWithin},
		{"LockdownsWithin", testLockdownsWithin},
		{"LocationsWithin", testLocationsWithin},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store, clock := open(t)
			f := &fixture{t: t, s: store, now: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)}
			*clock = func() time.Time { return f.now }
			tc.fn(t, f)
		})
	}
}

// fixture is a store with a settable clock and helpers that fail the test
// on any error.
type fixture struct {
	t   *testing.T
	s   gatehouse.Store
	now time.Time
	// batched: take goes through TakeCommandsBatch, one request a call.
	batched bool
}

var ctx = context.Background()

// settle waits until the feed and the command changes show every write
// made before it. On PostgreSQL they stop before the oldest transaction
// still running anywhere in the cluster, so that no later commit slips
// behind a reader; other tests share the cluster. It writes one event of
// an organization of its own and waits for it to show.
func (f *fixture) settle() {
	f.t.Helper()
	org := f.org("Settle " + gatehouse.NewID().String())
	ap := f.accessPoint(org.ID, f.location(org.ID, "Here").ID, "Door")
	f.ingest(org.ID, f.attempt(ap, gatehouse.EventAccessGranted, 0))
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		page, err := f.s.ReadFeed(ctx, org.ID, gatehouse.EventFilter{Limit: 1}, gatehouse.FeedPosition{})
		must(f.t, err)
		if len(page.Events) == 1 {
			return
		}
		if time.Now().After(deadline) {
			f.t.Fatal("the feed did not show an event committed 20 s ago")
		}
	}
}

func (f *fixture) org(name string) gatehouse.Organization {
	f.t.Helper()
	o, err := f.s.CreateOrganization(ctx, gatehouse.SystemEntry(gatehouse.AuditOrganizationCreated), name)
	must(f.t, err)
	return o
}

func (f *fixture) location(org uuid.UUID, name string) gatehouse.Location {
	f.t.Helper()
	l, err := f.s.CreateLocation(ctx, gatehouse.SystemEntry(gatehouse.AuditLocationCreated), org, name)
	must(f.t, err)
	return l
}

func (f *fixture) accessPoint(org, loc uuid.UUID, name string) gatehouse.AccessPoint {
	f.t.Helper()
	ap, err := f.s.CreateAccessPoint(ctx, gatehouse.SystemEntry(gatehouse.AuditAccessPointCreated), org, loc, name)
	must(f.t, err)
	return ap
}

func (f *fixture) ingest(org uuid.UUID, events ...gatehouse.NewEvent) gatehouse.IngestResult {
	f.t.Helper()
	res, err := f.s.IngestEvents(ctx, org, events)
	must(f.t, err)
	return res
}

// all walks every page of f's events with page size limit.
func (f *fixture) all(org uuid.UUID, filter gatehouse.EventFilter, limit int) []gatehouse.Event {
	f.t.Helper()
	filter.Limit = limit
	var out []gatehouse.Event
	for {
		page, err := f.s.ListEvents(ctx, org, filter)
		must(f.t, err)
		if len(page.Events) > limit {
			f.t.Fatalf("page of %d events for limit %d", len(page.Events), limit)
		}
		out = append(out, page.Events...)
		if page.Next == nil {
			return out
		}
		if len(page.Events) != limit && !page.Partial {
			f.t.Fatalf("a page of %d events (limit %d) says more follow", len(page.Events), limit)
		}
		filter.After = page.Next
	}
}

// attempt is an access attempt minutesAgo before the clock.
func (f *fixture) attempt(ap gatehouse.AccessPoint, typ gatehouse.EventType, minutesAgo int) gatehouse.NewEvent {
	o := gatehouse.Granted
	if typ == gatehouse.EventAccessDenied {
		o = gatehouse.Denied
	}
	return gatehouse.NewEvent{ID: gatehouse.NewID(), Type: typ, Allowed: &o, AccessPointID: ap.ID,
		OccurredAt: f.now.Add(-time.Duration(minutesAgo) * time.Minute)}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// wantErr checks err against a sentinel and, for ErrInvalid, the exact issue keys.
func wantErr(t *testing.T, what string, err, target error, issues ...string) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: error %v, want %v", what, err, target)
	}
	if len(issues) == 0 {
		return
	}
	var ve *gatehouse.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("%s: %T is not a *ValidationError", what, err)
	}
	if got := slices.Sorted(maps.Keys(ve.Issues)); !slices.Equal(got, issues) {
		t.Fatalf("%s: issues %v, want %v", what, got, issues)
	}
}

func ids(events []gatehouse.Event) []uuid.UUID {
	out := make([]uuid.UUID, len(events))
	for i, e := range events {
		out[i] = e.ID
	}
	return out
}

func newIDs(events ...gatehouse.NewEvent) []uuid.UUID {
	out := make([]uuid.UUID, len(events))
	for i, e := range events {
		out[i] = e.ID
	}
	return out
}

func ptr[T any](v T) *T { return &v }

func slicesSortLocations(locs []gatehouse.Location) {
	slices.SortFunc(locs, func(a, b gatehouse.Location) int {
		if a.Name != b.Name {
			return strings.Compare(a.Name, b.Name)
		}
		return bytes.Compare(a.ID[:], b.ID[:])
	})
}

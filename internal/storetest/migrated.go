package storetest

import (
	"testing"

	"github.com/gatehouse/gatehouse"
	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
)

// CheckMigratedSearch is the search half of each store's test of the
// migration to search terms (0011): on an organization whose events were
// stored before it, first (user Ünï-42, door "Front Door", location HQ,
// job job-1) and second (the same door under its old name "Old Door",
// reason BANNED, a minute older), q finds each event by every field, by
// the name the event shows, and by the prefix of its id.
func CheckMigratedSearch(t *testing.T, s gatehouse.Store, org, first, second uuid.UUID) {
	t.Helper()
	for q, want := range map[string][]uuid.UUID{
		"ÜNÏ":                    {first},
		"front door":             {first},
		"OLD":                    {second},
		"door":                   {first, second},
		"hq":                     {first, second},
		"banned":                 {second},
		"JOB-1":                  {first},
		second.String()[:6]:      {second},
		second.String()[24:]:     {},
		"nothing of the kind":    {},
		first.String()[:8] + "-": {first},
	} {
		page, err := s.ListEvents(ctx, org, gatehouse.EventFilter{Q: q, Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		got := []uuid.UUID{}
		for _, e := range page.Events {
			got = append(got, e.ID)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("q=%q (-want +got)\n%s", q, diff)
		}
	}
}

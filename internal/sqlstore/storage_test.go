package sqlstore_test

import (
	"testing"

	"github.com/gatehouse/gatehouse/internal/sqlstore"
)

func TestIndexDefinition(t *testing.T) {
	for create, want := range map[string]string{
		"CREATE INDEX events_by_time ON events (org, occurred_at DESC, id DESC)":                                          "(org, occurred_at DESC, id DESC)",
		"CREATE INDEX events_by_type ON events (org, type) WHERE type <> 'ACCESS_GRANTED'":                                "(org, type) WHERE type <> 'ACCESS_GRANTED'",
		"CREATE UNIQUE INDEX events_by_id ON public.events USING btree (org, id)":                                         "(org, id)",
		"CREATE INDEX search_terms_folded ON public.search_terms USING gin (folded gin_trgm_ops) WITH (fastupdate='off')": "gin (folded gin_trgm_ops) WITH (fastupdate='off')",
		"CREATE INDEX e ON x USING brin (occurred_at)":                                                                    "brin (occurred_at)",
		"": "",
	} {
		if got := sqlstore.IndexDefinition(create); got != want {
			t.Errorf("IndexDefinition(%q) = %q, want %q", create, got, want)
		}
	}
}

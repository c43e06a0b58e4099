package postgres_test

import (
	"context"
	"errors"
	"testing"

	"github.com/gatehouse/gatehouse/internal/postgres"
	"github.com/gatehouse/gatehouse/internal/sqlstore"
	"github.com/gatehouse/gatehouse/internal/testenv"
)

func TestOpenExistingDoesNotMigrate(t *testing.T) {
	ctx := context.Background()
	dsn := testenv.PostgresDSN(t)
	if _, err := postgres.OpenExisting(ctx, dsn); !errors.Is(err, sqlstore.ErrNotMigrated) {
		t.Errorf("an unmigrated database: %v, want ErrNotMigrated", err)
	}
	if _, err := postgres.OpenExisting(ctx, dsn); !errors.Is(err, sqlstore.ErrNotMigrated) {
		t.Errorf("the same database again: %v, want it still unmigrated", err)
	}
	if err := open(t, dsn).Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	db, err := postgres.OpenExisting(ctx, dsn)
	if err != nil {
		t.Fatalf("a migrated database: %v", err)
	}
	defer db.Close()
	if _, err := db.ListOrganizations(ctx); err != nil {
		t.Errorf("reading it: %v", err)
	}
}

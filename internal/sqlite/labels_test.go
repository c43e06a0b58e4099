package sqlite_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/httperror"
	"github.com/gatehouse/gatehouse/internal/sqlite"
)

// A store that fails names the failing method and the organization in
// the error's text, which internal/server's writeError logs for every 5xx
// ("request failed", error=…); the answer stays the table's, word for
// word, and errors.Is still finds the cause.
func TestClosedStoreErrorNamesMethodAndOrganization(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "gatehouse.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	org, err := db.CreateOrganization(ctx, gatehouse.SystemEntry(gatehouse.AuditOrganizationCreated), "Acme")
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	_, err = db.ListEvents(ctx, org.ID, gatehouse.EventFilter{Limit: 10})
	want := "Store.ListEvents(" + org.ID.String() + "): "
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "database is closed") {
		t.Fatalf("ListEvents on a closed store: %v; want %q and the driver's text", err, want)
	}
	t.Logf("logged: %v", err)
	if !errors.Is(err, gatehouse.ErrUnavailable) {
		t.Errorf("ListEvents on a closed store: %v; want errors.Is ErrUnavailable", err)
	}
	a := httperror.For(err)
	if a.Status != 503 || a.Message != "the service cannot reach its database; retry shortly" || strings.Contains(a.Message, "Store.") {
		t.Errorf("the answer to a closed store: %d %q; want the table's 503, unlabelled", a.Status, a.Message)
	}
}

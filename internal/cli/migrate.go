package cli

import (
	"context"

	"github.com/gatehouse/gatehouse/internal/service"
)

func runMigrate(ctx context.Context, e *env) error {
	f := newFlags(e, "migrate")
	return withNewService(ctx, f, 0, func(*service.Service, []string) error {
		return f.print(map[string]string{"status": "migrated"}, "database %s is up to date", *f.db)
	})
}

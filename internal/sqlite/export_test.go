package sqlite

import (
	"path"

	"github.com/gatehouse/gatehouse/internal/sqlstore"
)

// MigrationFiles lists the embedded migrations by file name, in order.
func MigrationFiles() []string {
	ms, _ := sqlstore.Migrations(migrations, "migrations/*.sql")
	files := make([]string, len(ms))
	for i, m := range ms {
		files[i] = path.Base(m.Name)
	}
	return files
}

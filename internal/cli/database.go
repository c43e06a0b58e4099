package cli

import (
	"net/url"
	"path/filepath"
	"strings"

	"github.com/gatehouse/gatehouse/internal/app"
)

// databaseName says which database dsn opens, for the start-up log line:
// the SQLite file's absolute path, or PostgreSQL's host, port and database.
// It never includes a user, a password or the query string, where a URL
// may carry credentials (password=…, sslkey=…).
func databaseName(dsn string) string {
	if !app.IsPostgres(dsn) {
		path := strings.TrimPrefix(dsn, "sqlite:")
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
		return "sqlite:" + path
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return "postgres (an unparsable URL)" // the URL itself could hold a password
	}
	return (&url.URL{Scheme: "postgres", Host: u.Host, Path: u.Path}).String()
}

// Package sqlstore holds what the two SQL stores, internal/sqlite and
// internal/postgres, do alike apart from their SQL: the organization key
// cache, the escalation of a search for q from scanning to the index,
// keyset page trimming, the migration runner and schema check, the checks
// and messages of ingest, the fields every new record gets, the
// decoding of key columns, the alert rules' page of alerts, audit match
// and storing of what an evaluation fired, and a grant's columns, page
// and running span. Between those two packages only SQL and driver calls
// should repeat; a rule both follow lives here, once.
//
// It imports no database driver (a test keeps it so): the stores pass
// their queries in as functions or small interfaces.
package sqlstore

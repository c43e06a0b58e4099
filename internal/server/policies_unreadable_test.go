package server_test

import (
	"bytes"
	"compress/gzip"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse/internal/app"
	"github.com/gatehouse/gatehouse/internal/teststore"
	"github.com/google/uuid"
)

// unreadableBody is a policy with a deny rule ending in year 10000: what
// an older version accepted and could not read back.
const unreadableBody = `{"mode":"RULES","schedule":null,"allow":[],"deny":[{"platformUserId":"1","until":"10000-01-01T23:58:59.000Z"}],"failMode":"CLOSED"}`

// newEnvOnFile is newEnv on a SQLite file of the test's, and a function
// that overwrites, behind the store's back, the stored body of an access
// point's current policy. (The store suite proves the same on both
// backends: RunUnreadablePolicy.)
func newEnvOnFile(t *testing.T) (*env, func(ap uuid.UUID, body string)) {
	path := filepath.Join(t.TempDir(), "gatehouse.db")
	db := teststore.OpenSQLite(t, path)
	e := newEnv(t, func(s *app.Settings) { db.Now, s.DB = s.Now, app.Use(db) })
	e.store = db
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	return e, func(ap uuid.UUID, body string) {
		t.Helper()
		if _, err := raw.Exec(`UPDATE policies SET body = ?
			WHERE access_point_id = ? AND version = (SELECT policy_version FROM access_points WHERE id = ?)`, body, ap[:], ap[:]); err != nil {
			t.Fatal(err)
		}
	}
}

// TestUnreadablePolicyHurtsOnlyItself: one stored policy that cannot be
// read fails its own GET and decisions with record_unreadable; the
// universe's set is served without it and names it under unreadable (and
// the log says so); syncs and the other access point's decisions work;
// a PUT replaces it, If-Match included.
func TestUnreadablePolicyHurtsOnlyItself(t *testing.T) {
	e, corrupt := newEnvOnFile(t)
	o := e.newPolicyOrg("Acme")
	good, bad := o.accessPoints[0].ID, o.accessPoints[1].ID // both in universe 42
	e.putPolicy(o.policyKey, good, officeHours)
	e.putPolicy(o.policyKey, bad, officeHours)
	corrupt(bad, unreadableBody)

	r := e.do(http.MethodGet, policyPath(bad), o.policyKey, nil)
	if r.status != http.StatusInternalServerError || r.apiError(t).Code != "record_unreadable" {
		t.Errorf("GET the unreadable policy: %d %s", r.status, r.body)
	}
	e.getPolicy(o.policyKey, good)
	decision := func(ap uuid.UUID) string {
		return fmt.Sprintf(`{"accessPointId": "%s", "platformUserId": "1", "attributes": {"groups": {"456": 250}}}`, ap)
	}
	if r := e.post("/api/consumer/v1/decisions", o.serverKey, decision(bad)); r.status != http.StatusInternalServerError || r.apiError(t).Code != "record_unreadable" {
		t.Errorf("a decision by the unreadable policy: %d %s", r.status, r.body)
	}
	if d := e.decide(o.serverKey, decision(good)); d.PolicyVersion == nil || *d.PolicyVersion != 1 {
		t.Errorf("a decision for the other access point: %+v", d)
	}

	set, _ := e.policySet(o.serverKey, "42", "")
	if len(set.AccessPoints) != 1 || set.AccessPoints[0].AccessPoint.ID != good ||
		len(set.Unreadable) != 1 || set.Unreadable[0].AccessPoint.ID != bad || set.Unreadable[0].PolicyVersion != 1 {
		t.Fatalf("the set with an unreadable policy: %+v", set)
	}
	if !strings.Contains(string(e.get("/metrics", "").body), "gatehouse_policy_set_unreadable_policies_total 1\n") {
		t.Error("/metrics does not count the policy the set left out")
	}
	if !strings.Contains(e.logs.String(), bad.String()) {
		t.Errorf("no log line names the unreadable policy's access point:\n%s", e.logs.String())
	}
	if v := e.syncTake(o.serverKey, "job-1").PolicyVersion; v != set.Version {
		t.Errorf("sync policyVersion %q, the set's %q", v, set.Version)
	}

	repaired := e.putPolicy(o.policyKey, bad, officeHours, "If-Match", `"1"`)
	if repaired.Version != 2 {
		t.Errorf("PUT over the unreadable policy: version %d, want 2", repaired.Version)
	}
	e.getPolicy(o.policyKey, bad)
	after, _ := e.policySet(o.serverKey, "42", "")
	if len(after.AccessPoints) != 2 || len(after.Unreadable) != 0 || after.Version == set.Version {
		t.Errorf("the set after the repair: %+v", after)
	}
}

// TestPolicySetServedGzipped: a client that accepts gzip gets the set's
// bytes compressed once for its version, with the ETag and Vary; the
// plain answer is the same JSON.
func TestPolicySetServedGzipped(t *testing.T) {
	e := newEnv(t)
	o := e.newPolicyOrg("Acme")
	e.putPolicy(o.policyKey, o.accessPoints[0].ID, officeHours)
	plain, r := e.policySet(o.serverKey, "42", "")
	zipped := e.do(http.MethodGet, "/api/consumer/v1/policies?universeId=42", o.serverKey, nil, "Accept-Encoding", "gzip")
	if zipped.status != http.StatusOK || zipped.header.Get("Content-Encoding") != "gzip" ||
		zipped.header.Get("ETag") != r.header.Get("ETag") || !strings.Contains(zipped.header.Get("Vary"), "Accept-Encoding") {
		t.Fatalf("gzip answer: %d %v", zipped.status, zipped.header)
	}
	zr, err := gzip.NewReader(bytes.NewReader(zipped.body))
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(body, r.body) {
		t.Errorf("gunzipped %s\nplain %s (%v)", body, r.body, err)
	}
	if plain.Version == "" || len(plain.AccessPoints) != 2 {
		t.Errorf("plain set %+v", plain)
	}
}

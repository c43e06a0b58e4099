package dashboard_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/sqlite"
	"github.com/google/uuid"
)

// faultyStore is the site's real SQLite store; failLists makes its
// ListEvents fail from the given call on, as a database that goes away in
// the middle of an export.
type faultyStore struct {
	*sqlite.DB
	failFrom atomic.Int64 // the first failing call, counted from 1; 0: none fails
	calls    atomic.Int64
}

var errDatabaseGone = errors.New("the database went away")

func (s *faultyStore) ListEvents(ctx context.Context, orgID uuid.UUID, f gatehouse.EventFilter) (gatehouse.EventPage, error) {
	if n, from := s.calls.Add(1), s.failFrom.Load(); from > 0 && n >= from {
		return gatehouse.EventPage{}, errDatabaseGone
	}
	return s.DB.ListEvents(ctx, orgID, f)
}

// failLists makes ListEvents fail from its next call but skip ones.
func (s *faultyStore) failLists(skip int) {
	s.failFrom.Store(s.calls.Load() + int64(skip) + 1)
}

// manyEvents stores n denied events of the tenant, a second apart.
func (s *site) manyEvents(tn tenant, n int) {
	s.t.Helper()
	var events []gatehouse.NewEvent
	for i := range n {
		events = append(events, gatehouse.NewEvent{ID: gatehouse.NewID(), Type: gatehouse.EventAccessDenied, Allowed: new(gatehouse.Denied),
			OccurredAt: s.now.Add(-time.Duration(i) * time.Second), AccessPointID: tn.ap.ID})
	}
	if _, err := s.store.IngestEvents(context.Background(), tn.org.ID, events); err != nil {
		s.t.Fatal(err)
	}
}

// TestExportCutByTheDatabaseIsNotAFile has the database fail after the
// first page of an export: the client must see a broken transfer, not a
// clean end of a short file; what it received must end with a whole row;
// and the access log and the metrics must record the response as cut.
func TestExportCutByTheDatabaseIsNotAFile(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	s.manyEvents(acme, 1200)
	b := s.signedIn(acme)
	s.faults.failLists(1)
	res, err := b.client.Get(s.url + "/dashboard/events/export.csv")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err == nil {
		t.Errorf("an export cut after %d bytes ended as a whole file (%d)", len(body), res.StatusCode)
	}
	if len(body) == 0 || body[len(body)-1] != '\n' {
		t.Fatalf("the cut export does not end with a whole line: %q", body[max(0, len(body)-80):])
	}
	rows, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
	if err != nil || len(rows) != 1+gatehouse.MaxLimit {
		t.Errorf("received %d whole rows (%v), want the header and the first page's %d", len(rows), err, gatehouse.MaxLimit)
	}
	id := res.Header.Get("X-Request-Id")
	logs := s.logs.String()
	if !strings.Contains(logs, `"msg":"dashboard export cut"`) || !strings.Contains(logs, `"cause":"database"`) ||
		!strings.Contains(logs, `"requestId":"`+id+`","method":"GET","path":"/dashboard/events/export.csv"`) ||
		!strings.Contains(logs, `"cut":"aborted"`) {
		t.Errorf("the cut is not in the log with request id %s:\n%s", id, logs)
	}
	if n := cutCount(t, s); n != 1 {
		t.Errorf("gatehouse_http_responses_cut_total: %v, want 1", n)
	}
}

// TestExportOutlivesTheServersWriteTimeout serves the dashboard with a
// write deadline that has passed before the handler starts: an export
// sets its own deadline for every page, so it still arrives whole.
func TestExportOutlivesTheServersWriteTimeout(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	s.manyEvents(acme, 1200)
	b := s.signedIn(acme)
	slow := httptest.NewUnstartedServer(s.handler)
	slow.Config.WriteTimeout = time.Nanosecond
	slow.Start()
	t.Cleanup(slow.Close)
	res, err := b.client.Get(slow.URL + "/dashboard/events/export.csv") // the session cookie goes to any port of the host
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("export under a write deadline already passed: %d, %v after %d bytes", res.StatusCode, err, len(body))
	}
	if rows, err := csv.NewReader(bytes.NewReader(body)).ReadAll(); err != nil || len(rows) != 1+1202 {
		t.Errorf("%d rows (%v), want the header and 1,202 events", len(rows), err)
	}
}

func cutCount(t *testing.T, s *site) float64 {
	t.Helper()
	mfs, err := s.metrics.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var n float64
	for _, mf := range mfs {
		if mf.GetName() == "gatehouse_http_responses_cut_total" {
			for _, m := range mf.GetMetric() {
				n += m.GetCounter().GetValue()
			}
		}
	}
	return n
}

// TestDashboardLogLinesNameTheUserAndOrganization: a line the dashboard
// logs while serving a signed-in user names the request, the user and the
// organization, as the API's lines name the key.
func TestDashboardLogLinesNameTheUserAndOrganization(t *testing.T) {
	s := newSite(t)
	acme := s.tenant("Acme")
	s.manyEvents(acme, 600)
	b := s.signedIn(acme)
	s.faults.failLists(1)
	if res, err := b.client.Get(s.url + "/dashboard/events/export.csv"); err == nil {
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	for line := range strings.SplitSeq(s.logs.String(), "\n") {
		if !strings.Contains(line, `"msg":"dashboard export cut"`) {
			continue
		}
		if !strings.Contains(line, `"orgId":"`+acme.org.ID.String()+`"`) || !strings.Contains(line, `"userId":"`) {
			t.Errorf("the line does not name the organization and the user: %s", line)
		}
		return
	}
	t.Fatalf("no cut logged:\n%s", s.logs.String())
}

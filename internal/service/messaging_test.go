package service_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
	"github.com/gatehouse/gatehouse/internal/teststore"
)

const openCloudKey = "oc-key-5f8d1b2c9e7a4d3fQ=="

// TestMessagingKeyIsSealedAndNeverShown: a set key opens for the
// publisher of the same organization and universe, and nothing else
// (the list, the audit log, the stored bytes) holds it.
func TestMessagingKeyIsSealedAndNeverShown(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "gatehouse.db")
	db := teststore.OpenSQLite(t, path)
	// The service of serve pins another secret for cursors: sealing
	// still uses the database's, so an operator's command agrees.
	svc := service.New(service.Config{Store: db, Secret: []byte("pinned secret for cursors only!!")})
	cli := service.New(service.Config{Store: db})
	org, err := svc.CreateOrganization(ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	other, err := svc.CreateOrganization(ctx, "Rival")
	if err != nil {
		t.Fatal(err)
	}
	k, err := cli.SetMessaging(ctx, org.ID, "42", "  "+openCloudKey+"\n")
	if err != nil {
		t.Fatal(err)
	}
	if k.UniverseID != "42" {
		t.Errorf("SetMessaging = %+v", k)
	}
	if k.Hint != "fQ==" {
		t.Errorf("hint %q, want the key's last 4 characters", k.Hint)
	}
	if got, err := svc.OpenMessagingKey(ctx, org.ID, "42"); err != nil || got != openCloudKey {
		t.Errorf("OpenMessagingKey = %q, %v; want the key, trimmed", got, err)
	}
	if _, err := svc.OpenMessagingKey(ctx, other.ID, "42"); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("another organization's universe 42: %v, want ErrNotFound", err)
	}
	if _, err := svc.OpenMessagingKey(ctx, org.ID, "43"); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("a universe without a key: %v, want ErrNotFound", err)
	}
	sealed, err := db.FindMessagingKey(ctx, org.ID, "42")
	if err != nil || strings.Contains(string(sealed), openCloudKey) || strings.Contains(string(sealed), "5f8d1b2c") {
		t.Errorf("the stored key is in clear: %q, %v", sealed, err)
	}
	list, err := svc.ListMessaging(ctx, org.ID)
	if err != nil || len(list) != 1 || list[0] != k {
		t.Errorf("ListMessaging = %+v, %v", list, err)
	}
	if err := svc.RemoveMessaging(ctx, org.ID, "42"); err != nil {
		t.Fatal(err)
	}
	if err := svc.RemoveMessaging(ctx, org.ID, "42"); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("removing twice: %v, want ErrNotFound", err)
	}
	if _, err := svc.OpenMessagingKey(ctx, org.ID, "42"); !errors.Is(err, gatehouse.ErrNotFound) {
		t.Errorf("a removed key: %v, want ErrNotFound", err)
	}
	page, err := svc.ListAuditLog(ctx, org.ID, gatehouse.AuditFilter{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(page)
	if strings.Contains(string(b), "5f8d1b2c") {
		t.Errorf("the audit log holds the key: %s", b)
	}
	var actions []gatehouse.AuditAction
	for _, e := range page.Entries {
		actions = append(actions, e.Action)
	}
	if len(actions) < 2 || actions[0] != gatehouse.AuditMessagingRemoved || actions[1] != gatehouse.AuditMessagingSet {
		t.Errorf("audit actions %v, want messaging.removed then messaging.set first", actions)
	}
}

func TestSetMessagingChecksItsInput(t *testing.T) {
	f := newService(t, nil)
	ctx := context.Background()
	for _, tc := range []struct {
		universe, key string
		issues        []string
	}{
		{"42", "", []string{"apiKey"}},
		{"42", "short", []string{"apiKey"}},
		{"42", strings.Repeat("k", gatehouse.MaxMessagingKey+1), []string{"apiKey"}},
		{"42", "a key with spaces inside it", []string{"apiKey"}},
		{"42", "oc-key-\x1b[2J-0123456789", []string{"apiKey"}},
		{"42", "oc-key-é-0123456789abcdef", []string{"apiKey"}},
		{"042", openCloudKey, []string{"universeId"}},
		{"", "", []string{"apiKey", "universeId"}},
	} {
		_, err := f.svc.SetMessaging(ctx, f.org.ID, tc.universe, tc.key)
		wantIssues(t, "SetMessaging("+tc.universe+")", err, tc.issues...)
	}
	if _, err := f.svc.SetMessaging(ctx, f.org.ID, "42", strings.Repeat("k", gatehouse.MaxMessagingKey)); err != nil {
		t.Errorf("a key of the maximum length: %v", err)
	}
	if _, err := f.svc.SetMessaging(ctx, f.other.ID, "42", openCloudKey); err != nil {
		t.Fatal(err)
	}
	if list, err := f.svc.ListMessaging(ctx, f.org.ID); err != nil || len(list) != 1 || list[0].Hint != "kkkk" {
		t.Errorf("Acme's list = %+v, %v; want its key alone", list, err)
	}
	if err := f.svc.RemoveMessaging(ctx, f.org.ID, "x"); !errors.Is(err, gatehouse.ErrInvalid) {
		t.Errorf("RemoveMessaging(x): %v", err)
	}
}

// TestMessagingIsForAdmins:
//   - only an admin of the organization (or the operator's CLI, the
//     system) sets, lists or removes keys;
//   - an admin of another organization finds nothing;
//   - only the publisher's method, which no door calls, opens a key.
func TestMessagingIsForAdmins(t *testing.T) {
	f := newService(t, nil)
	bg := context.Background()
	as := func(org gatehouse.Organization, role gatehouse.Role) context.Context {
		return gatehouse.WithActor(bg, gatehouse.Actor{Type: gatehouse.ActorUser, ID: gatehouse.NewID(), OrgID: org.ID, Role: role})
	}
	all := func(ctx context.Context) []error {
		_, setErr := f.svc.SetMessaging(ctx, f.org.ID, "42", openCloudKey)
		_, listErr := f.svc.ListMessaging(ctx, f.org.ID)
		return []error{setErr, listErr, f.svc.RemoveMessaging(ctx, f.org.ID, "42")}
	}
	for _, tc := range []struct {
		who  string
		ctx  context.Context
		want error
	}{
		{"a viewer", as(f.org, gatehouse.RoleViewer), gatehouse.ErrForbidden},
		{"an operator", as(f.org, gatehouse.RoleOperator), gatehouse.ErrForbidden},
		{"another organization's admin", as(f.other, gatehouse.RoleAdmin), gatehouse.ErrNotFound},
		{"an admin", as(f.org, gatehouse.RoleAdmin), nil},
		{"the system", bg, nil},
	} {
		for i, err := range all(tc.ctx) {
			if !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
				t.Errorf("%s, call %d: %v, want %v", tc.who, i, err, tc.want)
			}
		}
	}
}

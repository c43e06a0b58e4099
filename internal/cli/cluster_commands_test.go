package cli_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/gatehouse/gatehouse/internal/testenv"
)

// syncAnswer is the part of a sync's answer these tests read.
type syncAnswer struct {
	Commands []struct {
		ID               string
		Status           string
		RemainingSeconds int
	}
	Cursor string
}

// syncOn makes one sync of the server jobID of universe 4242 on in.
func syncOn(t *testing.T, in *instance, key, jobID, cursor string, wait int, acks string) syncAnswer {
	t.Helper()
	c := "null"
	if cursor != "" {
		c = fmt.Sprintf("%q", cursor)
	}
	body := fmt.Sprintf(`{"universeId":"4242","players":["77"],"acks":[%s],"cursor":%s,"waitSeconds":%d}`, acks, c, wait)
	r := in.do(t, "POST", "/api/consumer/v1/servers/"+jobID+"/sync", key, body)
	var a syncAnswer
	if r.status != 200 || json.Unmarshal([]byte(r.body), &a) != nil {
		t.Fatalf("sync on %s: %d %s", in.base, r.status, r.body)
	}
	return a
}

// TestUnlockReachesAPollOnAnotherInstance runs two serve processes on one
// PostgreSQL: a game server long-polls instance B, an unlock is issued on
// instance A, and B answers the waiting poll within a second (LISTEN and
// NOTIFY, not a slow poll of the table). The server's acknowledgement on B
// is what A then reports.
func TestUnlockReachesAPollOnAnotherInstance(t *testing.T) {
	g := newGH(t)
	g.db = testenv.PostgresDSN(t)
	var o, loc, ap, key record
	g.json(&o, "org", "create", "--name", "Cluster")
	g.json(&loc, "location", "create", "--org", o.ID, "--name", "HQ", "--universe-id", "4242")
	g.json(&ap, "access-point", "create", "--location", loc.ID, "--name", "Door")
	g.json(&key, "key", "create", "--org", o.ID, "--name", "game", "--scopes", "server,commands:write")
	a, b := startServe(t, "--db", g.db), startServe(t, "--db", g.db)

	cursor := syncOn(t, b, key.Key, "job-b", "", 0, "").Cursor // the server is live
	polled := make(chan syncAnswer, 1)
	go func() { polled <- syncOn(t, b, key.Key, "job-b", cursor, 8, "") }()
	time.Sleep(300 * time.Millisecond) // let the poll start waiting

	r := a.do(t, "POST", "/api/consumer/v1/commands", key.Key,
		fmt.Sprintf(`{"type":"UNLOCK","accessPointId":%q,"scope":"SERVER","serverJobId":"job-b","durationSeconds":30}`, ap.ID))
	issued := time.Now()
	var cmd struct{ ID, Status string }
	if r.status != 201 || json.Unmarshal([]byte(r.body), &cmd) != nil || cmd.Status != "PENDING" {
		t.Fatalf("issue on A: %d %s", r.status, r.body)
	}
	var got syncAnswer
	select {
	case got = <-polled:
	case <-time.After(8 * time.Second):
		t.Fatal("the poll on B never answered")
	}
	if late := time.Since(issued); late > time.Second {
		t.Errorf("the poll on B answered %v after the issue on A, want within a second", late)
	}
	if len(got.Commands) != 1 || got.Commands[0].ID != cmd.ID || got.Commands[0].RemainingSeconds != 30 {
		t.Fatalf("B delivered %+v, want command %s with 30 s remaining", got.Commands, cmd.ID)
	}

	syncOn(t, b, key.Key, "job-b", got.Cursor, 0, fmt.Sprintf(`{"commandId":%q,"result":"EXECUTED"}`, cmd.ID))
	var shown struct {
		Status  string
		Targets struct{ Live, Delivered, Executed int }
	}
	r = a.get(t, "/api/consumer/v1/commands/"+cmd.ID, key.Key)
	if r.status != 200 || json.Unmarshal([]byte(r.body), &shown) != nil {
		t.Fatalf("show on A: %d %s", r.status, r.body)
	}
	if shown.Status != "EXECUTED" || shown.Targets.Live != 1 || shown.Targets.Delivered != 1 || shown.Targets.Executed != 1 {
		t.Errorf("A shows %+v, want EXECUTED by its one live target", shown)
	}
}

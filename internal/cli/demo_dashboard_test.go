package cli_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startDemo runs gatehouse demo on db and returns where it listens and
// what it printed.
func startDemo(t *testing.T, db string) (string, demoPrinted) {
	t.Helper()
	cmd := exec.Command(gatehouseBinary(t), "demo", "--db", db, "--addr", "127.0.0.1:0", "--json")
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cmd.Process.Signal(syscall.SIGTERM)
			cmd.Wait()
		}
	}
	t.Cleanup(stop)
	var out demoPrinted
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || json.Unmarshal([]byte(line), &out) != nil {
		t.Fatalf("demo printed %q: %v", line, err)
	}
	go io.Copy(io.Discard, stdout)
	select {
	case a := <-listeningAddr(stderr):
		out.stop = stop
		return "http://" + a, out
	case <-time.After(30 * time.Second):
		t.Fatal("gatehouse demo did not start")
	}
	return "", out
}

type demoPrinted struct {
	Dashboard struct{ URL, Email, Password string }
	stop      func()
}

// signIn signs in to the dashboard at base and reports the status of the
// form's answer (303 when it worked).
func signIn(t *testing.T, base, email, password string) int {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Get(base + "/dashboard/login")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(string(body))
	if m == nil {
		t.Fatalf("no sign-in form: %s", body)
	}
	res, err = c.PostForm(base+"/dashboard/login", url.Values{"csrf": {m[1]}, "email": {email}, "password": {password}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// TestDemoPrintsADashboardSignIn: demo's account signs in, its password is
// new on every run, and user set-password replaces it.
func TestDemoPrintsADashboardSignIn(t *testing.T) {
	db := filepath.Join(t.TempDir(), "demo.db")
	base, first := startDemo(t, db)
	if !strings.HasSuffix(first.Dashboard.URL, "/dashboard/") || first.Dashboard.Email == "" || len(first.Dashboard.Password) < 16 {
		t.Fatalf("demo's dashboard sign-in: %+v", first.Dashboard)
	}
	if got := signIn(t, base, first.Dashboard.Email, first.Dashboard.Password); got != http.StatusSeeOther {
		t.Fatalf("signing in with demo's password: %d", got)
	}
	first.stop()

	base, second := startDemo(t, db)
	if second.Dashboard.Password == first.Dashboard.Password {
		t.Error("the second run printed the same password")
	}
	if got := signIn(t, base, first.Dashboard.Email, first.Dashboard.Password); got != http.StatusUnauthorized {
		t.Errorf("the first run's password after the second run: %d", got)
	}
	second.stop()

	// An operator's own account, and a password reset.
	g := &gh{t: t, db: db, env: map[string]string{"GATEHOUSE_PASSWORD": "the first passphrase"}}
	var orgs []record
	g.json(&orgs, "org", "list")
	if out, errOut, err := g.run(nil, "user", "create", "--org", orgs[0].ID, "--email", "ops@studio.test", "--name", "Ops"); err != nil {
		t.Fatalf("user create: %v %s %s", err, out, errOut)
	}
	in := startServe(t, "--db", db)
	if got := signIn(t, in.base, "ops@studio.test", "the first passphrase"); got != http.StatusSeeOther {
		t.Fatalf("a created user signs in: %d", got)
	}
	g.env["GATEHOUSE_PASSWORD"] = "the second passphrase"
	if out, errOut, err := g.run(nil, "user", "set-password", "--email", "ops@studio.test"); err != nil {
		t.Fatalf("user set-password: %v %s %s", err, out, errOut)
	}
	if got := signIn(t, in.base, "ops@studio.test", "the first passphrase"); got != http.StatusUnauthorized {
		t.Errorf("the old password after set-password: %d", got)
	}
	if got := signIn(t, in.base, "ops@studio.test", "the second passphrase"); got != http.StatusSeeOther {
		t.Errorf("the new password: %d", got)
	}
}

package luasdk

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// The environment's clock moves only when the test advances it; a
// request under pcall yields and resumes with the answer; a network
// error is raised.
func TestEnvClockAndHTTP(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "7")
		w.WriteHeader(429)
		w.Write([]byte(`{"error":"slow down","n":[1,2]}`))
	}))
	defer srv.Close()
	e := New(Options{})
	defer e.Close()
	e.Run(`
		local Http = game:GetService("HttpService")
		_G.log = {}
		task.spawn(function()
			local waited = task.wait(2)
			table.insert(_G.log, "waited " .. waited .. " at " .. os.clock())
		end)
		local ok, res = pcall(Http.RequestAsync, Http, {Url = "` + srv.URL + `", Method = "POST", Body = "{}"})
		table.insert(_G.log, tostring(ok) .. " " .. res.StatusCode .. " " .. res.Headers["retry-after"] .. " " .. Http:JSONDecode(res.Body).n[2])
		local ok2, err = pcall(Http.RequestAsync, Http, {Url = "http://127.0.0.1:1/x", Method = "GET"})
		table.insert(_G.log, tostring(ok2))
		task.delay(5, function() table.insert(_G.log, "delay at " .. os.clock()) end)
	`)
	e.Advance(10 * time.Second)
	if len(e.Errors) > 0 {
		t.Fatal(e.Errors)
	}
	v, err := e.Eval(`table.concat(_G.log, "|")`)
	if err != nil {
		t.Fatal(err)
	}
	want := "true 429 7 2|false|waited 2 at 2|delay at 5"
	if v.String() != want {
		t.Fatalf("log %q, want %q", v.String(), want)
	}
	if e.Requests[0] != 2 {
		t.Fatalf("requests %v", e.Requests)
	}
}

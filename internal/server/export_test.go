package server

import (
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/service"
)

// PanicOnPath adds a route that panics, to test recovery.
func PanicOnPath(c *Config, path string) {
	c.extraRoutes = func(mux *http.ServeMux) {
		mux.HandleFunc("GET "+path, func(http.ResponseWriter, *http.Request) { panic("test panic") })
	}
}

// WaitForCancelOnPath adds a route that answers only when its request is
// cancelled, as a query is when the client disconnects.
func WaitForCancelOnPath(c *Config, path string, reached chan<- struct{}) {
	c.extraRoutes = func(mux *http.ServeMux) {
		mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
			reached <- struct{}{}
			<-r.Context().Done()
			s := &server{Config: *c}
			s.writeError(w, r, r.Context().Err())
		})
	}
}

// DecodeIngest reads the body of POST /events as the handler does, for
// benchmarks of the decoder alone.
func DecodeIngest(r *http.Request, now time.Time) ([]gatehouse.NewEvent, error) {
	s := &server{Config: Config{Service: service.New(service.Config{Now: func() time.Time { return now }})}}
	return s.decodeIngest(httptest.NewRecorder(), r)
}

// MaxPolicyBody bounds the body of PUT /access-points/{id}/policy.
const MaxPolicyBody = maxPolicyBody

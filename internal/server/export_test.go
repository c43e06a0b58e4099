package server

import "net/http"

// PanicOnPath adds a route that panics, to test recovery.
func PanicOnPath(c *Config, path string) {
	c.extraRoutes = func(mux *http.ServeMux) {
		mux.HandleFunc("GET "+path, func(http.ResponseWriter, *http.Request) { panic("test panic") })
	}
}

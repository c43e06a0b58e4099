package server

import (
	"embed"
	"net/http"
)

// reference holds the API reference page and its renderer, Redoc's
// standalone bundle (MIT; see reference/REDOC-LICENSE), refreshed by
// scripts/update-redoc.sh. Everything is in the binary: /docs works offline.
//
//go:embed reference/index.html reference/redoc.standalone.js
var reference embed.FS

// referencePolicy lets the page run the bundled script and nothing from
// elsewhere; Redoc styles inline and runs its search in a blob worker.
const referencePolicy = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'; " +
	"object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

// serveReferencePage serves /docs: the API reference rendered from the
// document at /api/consumer/v1/openapi.json.
func serveReferencePage() http.Handler {
	page, _ := reference.ReadFile("reference/index.html")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Security-Policy", referencePolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		w.Write(page)
	})
}

// serveReferenceScript serves the renderer. It changes only with the
// binary, so browsers may keep it a day.
func serveReferenceScript() http.Handler {
	script, _ := reference.ReadFile("reference/redoc.standalone.js")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "text/javascript; charset=utf-8")
		h.Set("Cache-Control", "public, max-age=86400")
		h.Set("X-Content-Type-Options", "nosniff")
		w.Write(script)
	})
}

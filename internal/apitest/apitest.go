// Package apitest checks HTTP exchanges against the OpenAPI document, so
// that the document cannot drift from the code: a response with a field,
// status or header the document does not describe fails the test that saw
// it, and so does a request the server accepted that the document says is
// invalid. Start runs a real, checked API server for tests of clients.
package apitest

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gatehouse/gatehouse/internal/server"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// Checker validates exchanges against one OpenAPI document.
type Checker struct {
	doc    *openapi3.T
	router routers.Router
}

var (
	once    sync.Once
	shared  *Checker
	loadErr error
)

// Document returns a Checker for the document the server serves. It is
// loaded and validated once per test binary.
func Document(tb testing.TB) *Checker {
	tb.Helper()
	once.Do(func() { shared, loadErr = Load(server.OpenAPI()) })
	if loadErr != nil {
		tb.Fatal(loadErr)
	}
	return shared
}

func init() {
	// The reference page and its script are text, as far as checks go.
	openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
	openapi3filter.RegisterBodyDecoder("text/javascript", openapi3filter.PlainBodyDecoder)
}

// Load parses and validates a document.
func Load(data []byte) (*Checker, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("openapi: load: %w", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("openapi: invalid document: %w", err)
	}
	// Route by path alone, whatever host and port the test server has.
	doc.Servers = openapi3.Servers{{URL: "/"}}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("openapi: router: %w", err)
	}
	return &Checker{doc: doc, router: router}, nil
}

// Transport returns an http.RoundTripper that sends through base (nil:
// http.DefaultTransport) and reports, through tb, every exchange the
// document does not describe.
func (c *Checker) Transport(tb testing.TB, base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		var reqBody []byte
		if req.Body != nil {
			var err error
			if reqBody, err = io.ReadAll(req.Body); err != nil {
				return nil, err
			}
			req.Body.Close()
			req.Body = io.NopCloser(bytes.NewReader(reqBody))
		}
		res, err := base.RoundTrip(req)
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		res.Body = io.NopCloser(bytes.NewReader(body))
		if err != nil {
			return res, nil // the caller sees the short body
		}
		// A client that asked for gzip itself gets the compressed body; the
		// check reads it decompressed, as that client will.
		checked, err := decoded(res.Header, body)
		if err != nil {
			tb.Errorf("%s %s: %v", req.Method, req.URL.RequestURI(), err)
		}
		if err := c.Check(req, reqBody, res.StatusCode, res.Header, checked); err != nil {
			tb.Errorf("%s %s → %d does not match the OpenAPI document:\n%v\nresponse body: %.2000s",
				req.Method, req.URL.RequestURI(), res.StatusCode, err, checked)
		}
		return res, nil
	})
}

// Handler wraps h so that every exchange it serves is checked, whoever
// the client is (a program in another language, say).
func (c *Checker) Handler(tb testing.TB, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			tb.Errorf("reading the request: %v", err)
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec := &recorder{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(rec, r)
		resBody, err := decoded(w.Header(), rec.body.Bytes()) // as the client will read it
		if err != nil {
			tb.Errorf("%s %s: %v", r.Method, r.URL.RequestURI(), err)
		}
		if err := c.Check(r, body, rec.status, w.Header(), resBody); err != nil {
			tb.Errorf("%s %s → %d does not match the OpenAPI document:\n%v\nresponse body: %.2000s",
				r.Method, r.URL.RequestURI(), rec.status, err, resBody)
		}
	})
}

// decoded returns body as its reader sees it: decompressed when the
// header says gzip.
func decoded(header http.Header, body []byte) ([]byte, error) {
	if header.Get("Content-Encoding") != "gzip" {
		return body, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err == nil {
		body, err = io.ReadAll(zr)
	}
	if err != nil {
		return body, fmt.Errorf("a gzip body that does not decompress: %w", err)
	}
	return body, nil
}

// recorder passes a response through and keeps a copy.
type recorder struct {
	http.ResponseWriter
	status      int
	wroteHeader bool
	body        bytes.Buffer
}

func (r *recorder) WriteHeader(status int) {
	if !r.wroteHeader {
		r.status, r.wroteHeader = status, true
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(b []byte) (int, error) {
	r.wroteHeader = true
	r.body.Write(b)
	return r.ResponseWriter.Write(b)
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// transportHeaders are set by HTTP itself, not by the API: the connection,
// the framing, and content negotiation (the server gzips a JSON body for a
// client that accepts it, on every route, and says it varies by
// Accept-Encoding).
var transportHeaders = []string{"Connection", "Content-Encoding", "Content-Length", "Date", "Transfer-Encoding", "Vary"}

// ErrNoRoute means the document has no operation for the request; the
// exchange is not checked (a 404 or 405 for a path or method the API does
// not have).
var ErrNoRoute = errors.New("no operation in the document")

// Check validates one exchange: the response always (status, headers and
// body), the request when the server accepted it (2xx).
func (c *Checker) Check(req *http.Request, reqBody []byte, status int, header http.Header, body []byte) error {
	r := req.Clone(context.Background())
	r.Body = io.NopCloser(bytes.NewReader(reqBody))
	// The document's rule, in prose: an empty parameter value counts as absent.
	q := r.URL.Query()
	for name, values := range q {
		if !slices.ContainsFunc(values, func(v string) bool { return v != "" }) {
			q.Del(name)
		}
	}
	r.URL.RawQuery = q.Encode()
	route, params, err := c.router.FindRoute(r)
	if err != nil {
		if status == http.StatusNotFound || status == http.StatusMethodNotAllowed {
			return nil
		}
		return fmt.Errorf("%w (answered %d)", ErrNoRoute, status)
	}
	opts := &openapi3filter.Options{
		IncludeResponseStatus: true,
		MultiError:            true,
		AuthenticationFunc: func(_ context.Context, in *openapi3filter.AuthenticationInput) error {
			scheme, token, _ := strings.Cut(in.RequestValidationInput.Request.Header.Get("Authorization"), " ")
			if !strings.EqualFold(scheme, "Bearer") || token == "" {
				return errors.New("no bearer token")
			}
			return nil
		},
	}
	reqInput := &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route, Options: opts}
	var errs []error
	if status >= 200 && status < 300 {
		if err := openapi3filter.ValidateRequest(context.Background(), reqInput); err != nil {
			errs = append(errs, fmt.Errorf("the server accepted a request the document rejects: %w", err))
		}
	}
	resInput := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: reqInput, Status: status, Header: header, Options: opts,
	}
	resInput.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), resInput); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, c.checkHeaders(route.Operation, status, header)...)
	return errors.Join(errs...)
}

// checkHeaders reports response headers the document does not declare for
// this status (kin-openapi checks the declared ones, not the others).
func (c *Checker) checkHeaders(op *openapi3.Operation, status int, header http.Header) []error {
	res := op.Responses.Status(status)
	if res == nil {
		res = op.Responses.Default()
	}
	if res == nil || res.Value == nil {
		return nil // reported by ValidateResponse
	}
	var errs []error
	for name := range header {
		if slices.Contains(transportHeaders, name) || name == "Content-Type" {
			continue
		}
		if !declared(res.Value.Headers, name) {
			errs = append(errs, fmt.Errorf("header %s is not declared for status %d", name, status))
		}
	}
	return errs
}

func declared(headers openapi3.Headers, name string) bool {
	for n := range headers {
		if strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}

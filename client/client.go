// Package client is a Go client for the Gatehouse consumer API.
//
//	c, err := client.New("https://gatehouse.example.com", os.Getenv("GATEHOUSE_KEY"))
//
// The address may also be the API's base, as the demo prints it ($API,
// "http://localhost:8080/api/consumer/v1"): New takes either.
//
//	for ev, err := range c.Events(ctx, client.EventQuery{Allowed: "denied"}) {
//		if err != nil {
//			return err
//		}
//		fmt.Println(ev.OccurredAt, ev.AccessPoint.Name, ev.Type)
//	}
//
// It also issues and follows remote unlocks (IssueCommand, Commands,
// Command, CancelCommand), reads and sets access points' policies
// (Policy, SetPolicy), follows the feed (ReadFeed, Feed), manages webhook
// endpoints (CreateWebhook, ListWebhooks, UpdateWebhook, DeleteWebhook,
// WebhookDeliveries, RedeliverWebhook, ReplayWebhook, ReplayWebhookFromStart, TestWebhook) and
// verifies their deliveries (VerifyWebhook), lists the organization's
// keys and sets their rates (ListKeys, SetKeyRate), makes, lists and
// revokes timed grants (CreateGrant, Grants, Grant, RevokeGrant), and
// does what a game
// server does: its sync (Sync), its universe's policy set (PolicySet) and
// decisions (Decide).
//
// The client walks pages with nextCursor, waits out 429 and 503 answers as
// their Retry-After says (a bounded number of times), and never writes the
// key anywhere: not in errors, not in String, not in logs (it logs nothing).
// It uses only the standard library.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Client calls one Gatehouse server with one API key. It is safe for
// concurrent use.
type Client struct {
	base       *url.URL
	key        *secret
	http       *http.Client
	maxRetries int
	maxWait    time.Duration
	userAgent  string
	sleep      func(context.Context, time.Duration) error
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sends requests through hc instead of http.DefaultClient.
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.http = hc } }

// WithMaxRetries sets how many times a request answered 429 or 503 is
// retried after its Retry-After (default 4; 0 never retries).
func WithMaxRetries(n int) Option { return func(c *Client) { c.maxRetries = max(n, 0) } }

// WithMaxWait sets the longest Retry-After the client waits out (default
// one minute); a longer one is returned as the error at once.
func WithMaxWait(d time.Duration) Option { return func(c *Client) { c.maxWait = d } }

// WithUserAgent sets the User-Agent header, e.g. "warehouse-sync/1.2".
func WithUserAgent(ua string) Option { return func(c *Client) { c.userAgent = ua } }

// APIPath is the path of the consumer API under a server's address.
const APIPath = "/api/consumer/v1"

// New returns a client for the server at baseURL that authenticates with
// key. baseURL is the server's address (scheme and host, e.g.
// "https://gatehouse.example.com", and any path it is served under) or
// the API's base, that address followed by [APIPath] (the demo's $API,
// e.g. "http://localhost:8080/api/consumer/v1"): both reach the same API.
func New(baseURL, key string, opts ...Option) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("gatehouse client: base URL %q: want http(s)://host[:port], or the API's base http(s)://host[:port]%s", baseURL, APIPath)
	}
	// The API's base: every method names its path from APIPath on.
	u.Path = strings.TrimSuffix(u.Path, APIPath)
	u.RawPath = ""
	if key == "" {
		return nil, errors.New("gatehouse client: empty API key")
	}
	c := &Client{base: u, key: &secret{key}, http: http.DefaultClient, maxRetries: 4, maxWait: time.Minute,
		userAgent: "gatehouse-go-client", sleep: sleepCtx}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// String describes the client without its key.
func (c *Client) String() string {
	return fmt.Sprintf("gatehouse client for %s (key %s)", c.base, c.key)
}

// GoString keeps the key out of %#v too.
func (c *Client) GoString() string { return c.String() }

// secret holds the API key behind a pointer, so that printing a Client in
// any way (even %#v of the struct, which bypasses methods of unexported
// fields) shows an address, never the key. It prints as the key's public
// prefix: "gk_" and 8 characters, as the dashboard shows it.
type secret struct{ key string }

func (s *secret) String() string {
	if len(s.key) > 11 {
		return s.key[:11] + "…"
	}
	return "…"
}

func (s *secret) GoString() string { return s.String() }

// Error is an error answer of the API.
type Error struct {
	Status    int                 // HTTP status
	Code      string              // stable machine-readable code, e.g. "validation_failed"
	Message   string              // human-readable
	RequestID string              // quote it when reporting a problem
	Issues    map[string][]string // field → problems, for validation_failed and invalid_query
	// RetryAfter is the wait the server asked for (429, 503), or 0.
	RetryAfter time.Duration

	body []byte // the answer as sent, for what an endpoint adds to the envelope
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "gatehouse: %d %s: %s", e.Status, e.Code, e.Message)
	for field, problems := range e.Issues {
		fmt.Fprintf(&b, "; %s: %s", field, strings.Join(problems, ", "))
	}
	if e.RequestID != "" {
		fmt.Fprintf(&b, " (request %s)", e.RequestID)
	}
	return b.String()
}

// do sends a request and decodes a 2xx JSON answer into out, retrying 429
// and 503 answers after their Retry-After. path is escaped already.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, body any, out any) error {
	_, _, err := c.exchange(ctx, method, path, query, nil, body, out)
	return err
}

// exchange is do with request headers, returning the status and the
// headers of the 2xx answer.
func (c *Client) exchange(ctx context.Context, method, path string, query url.Values, header http.Header, body any, out any) (int, http.Header, error) {
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return 0, nil, fmt.Errorf("gatehouse client: encoding the request: %w", err)
		}
	}
	u := c.base.JoinPath(path)
	u.RawQuery = query.Encode()
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, method, u.String(), bytes.NewReader(payload))
		if err != nil {
			return 0, nil, fmt.Errorf("gatehouse client: %w", err)
		}
		for name, values := range header {
			req.Header[name] = values
		}
		req.Header.Set("Authorization", "Bearer "+c.key.key)
		req.Header.Set("Accept", "application/json")
		req.Header.Set("User-Agent", c.userAgent)
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		} else {
			req.Body, req.GetBody = nil, nil
		}
		status, got, apiErr, err := c.send(req, out)
		if err != nil || apiErr == nil {
			return status, got, err
		}
		retryable := apiErr.Status == http.StatusTooManyRequests || apiErr.Status == http.StatusServiceUnavailable
		if !retryable || attempt >= c.maxRetries || apiErr.RetryAfter > c.maxWait {
			return 0, nil, apiErr
		}
		wait := apiErr.RetryAfter
		if wait <= 0 {
			wait = time.Second
		}
		if err := c.sleep(ctx, wait); err != nil {
			return 0, nil, err
		}
	}
}

// send makes one attempt: the status and headers of a 2xx answer, an
// *Error for an API error answer, an error for a transport or decoding
// failure.
func (c *Client) send(req *http.Request, out any) (int, http.Header, *Error, error) {
	res, err := c.http.Do(req)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("gatehouse client: %s %s: %w", req.Method, req.URL.Path, unwrapURLError(err))
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, 64<<20))
	if err != nil {
		return 0, nil, nil, fmt.Errorf("gatehouse client: reading the answer: %w", err)
	}
	if res.StatusCode >= 200 && res.StatusCode < 300 {
		if out == nil {
			return res.StatusCode, res.Header, nil, nil // 204, or an answer not asked for
		}
		if err := json.Unmarshal(data, out); err != nil {
			return 0, nil, nil, fmt.Errorf("gatehouse client: decoding the answer: %w", err)
		}
		return res.StatusCode, res.Header, nil, nil
	}
	apiErr := &Error{Status: res.StatusCode, RequestID: res.Header.Get("X-Request-Id"), body: data}
	var body struct {
		Error     string              `json:"error"`
		Code      string              `json:"code"`
		RequestID string              `json:"requestId"`
		Issues    map[string][]string `json:"issues"`
	}
	if json.Unmarshal(data, &body) == nil && body.Code != "" {
		apiErr.Code, apiErr.Message, apiErr.Issues = body.Code, body.Error, body.Issues
		if body.RequestID != "" {
			apiErr.RequestID = body.RequestID
		}
	} else {
		apiErr.Code, apiErr.Message = "http_"+strconv.Itoa(res.StatusCode), http.StatusText(res.StatusCode)
	}
	if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil && s >= 0 {
		apiErr.RetryAfter = time.Duration(s) * time.Second
	}
	return 0, nil, apiErr, nil
}

// unwrapURLError drops *url.Error's wrapping, which repeats the full URL.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

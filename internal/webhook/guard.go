// Package webhook holds what delivering webhooks needs beside the service:
// an HTTP client that reaches only public addresses.
package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/gatehouse/gatehouse"
	"io"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// Delivery limits (docs/api.md, "Webhooks: /webhooks").
const (
	Timeout         = 10 * time.Second // a delivery's whole exchange
	MaxResponseRead = 64 << 10         // bytes of a receiver's response kept
)

// ErrPrivateAddress is returned for a connection to an address a webhook
// may not reach unless the server allows private targets
// (--webhooks-allow-private).
var ErrPrivateAddress = errors.New("webhook: the target's address is loopback, private, link-local or otherwise not public")

// Public reports whether a webhook may connect to addr without
// --webhooks-allow-private (gatehouse.PublicAddress).
func Public(addr netip.Addr) bool { return gatehouse.PublicAddress(addr) }

// NewClient returns the HTTP client deliveries are sent with. Unless
// allowPrivate, every connection it opens is checked when it is made, on
// the address actually dialled after DNS resolution: a name that resolves
// to a private address, at creation or only later (DNS rebinding), is
// refused all the same. It uses no proxy from the environment (a proxy
// would connect for it, unchecked), follows no redirect (a delivery goes
// to its endpoint's URL), and gives up after Timeout.
func NewClient(allowPrivate bool) *http.Client {
	dialer := &net.Dialer{Timeout: Timeout, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		dialer.Control = func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("webhook: dialling %s: %w", address, err)
			}
			if !Public(ap.Addr()) {
				return fmt.Errorf("%w: %s", ErrPrivateAddress, ap.Addr())
			}
			return nil
		}
	}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   Timeout,
		ResponseHeaderTimeout: Timeout,
	}
	return &http.Client{
		Transport:     transport,
		Timeout:       Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// ReadResponse reads at most MaxResponseRead bytes of a receiver's
// response body, for the delivery log, and drains no more of it.
func ReadResponse(res *http.Response) ([]byte, error) {
	defer res.Body.Close()
	return io.ReadAll(io.LimitReader(res.Body, MaxResponseRead))
}

// Sender returns what sends a delivery with client: a POST of body with
// header to url, answered with the status and at most MaxResponseRead
// bytes of the response.
func Sender(client *http.Client) func(ctx context.Context, url string, header http.Header, body []byte) (int, []byte, error) {
	exchange := Exchange(client)
	return func(ctx context.Context, url string, header http.Header, body []byte) (int, []byte, error) {
		status, _, response, err := exchange(ctx, url, header, body)
		return status, response, err
	}
}

// Exchange is Sender that also returns the response's headers: alert
// deliveries read Retry-After from them.
func Exchange(client *http.Client) func(ctx context.Context, url string, header http.Header, body []byte) (int, http.Header, []byte, error) {
	return func(ctx context.Context, url string, header http.Header, body []byte) (int, http.Header, []byte, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return 0, nil, nil, err
		}
		req.Header = header
		res, err := client.Do(req)
		if err != nil {
			return 0, nil, nil, err
		}
		response, err := ReadResponse(res)
		return res.StatusCode, res.Header, response, err
	}
}

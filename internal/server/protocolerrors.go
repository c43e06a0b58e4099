package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/gatehouse/gatehouse/internal/requestid"
)

// net/http answers a request it cannot parse (a malformed request line or
// header, a missing Host, headers over MaxHeaderBytes, an unknown transfer
// coding, an unsupported protocol version) itself, before any handler
// runs, by writing a fixed plain-text response straight to the connection.
// http.Server has no hook for these answers, so the only place to give
// them the service's JSON envelope is the connection: ProtocolErrors
// recognises those writes and replaces them.
const (
	plainPrefix  = "HTTP/1.1 "
	plainHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"
)

// ProtocolErrors wraps ln so that the answers net/http writes on its own
// to requests it cannot parse (400, 431, 501, 505) are the JSON error
// envelope, with a request id in the body and in X-Request-Id, and each
// is logged and counted as a request on route "unparsed". Everything else
// written to its connections passes through unchanged.
func ProtocolErrors(ln net.Listener, logger *slog.Logger, m *Metrics) net.Listener {
	return &protocolErrorListener{Listener: ln, logger: logger, metrics: m}
}

type protocolErrorListener struct {
	net.Listener
	logger  *slog.Logger
	metrics *Metrics
}

func (l *protocolErrorListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &protocolErrorConn{Conn: c, l: l}, nil
}

// protocolErrorConn is a connection whose net/http error answers are
// rewritten. It keeps the half-close net/http uses after a 431, so the
// client still reads the answer.
type protocolErrorConn struct {
	net.Conn
	l *protocolErrorListener
}

func (c *protocolErrorConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

func (c *protocolErrorConn) Write(p []byte) (int, error) {
	status, text, ok := parsePlainError(p)
	if !ok {
		return c.Conn.Write(p)
	}
	id := requestid.New()
	code, message := protocolErrorCode(status, text)
	body, _ := json.Marshal(apiError{Error: message, Code: code, RequestID: id})
	var out bytes.Buffer
	fmt.Fprintf(&out, "HTTP/1.1 %d %s\r\nCache-Control: no-store\r\nConnection: close\r\nContent-Length: %d\r\n"+
		"Content-Type: application/json\r\nX-Request-Id: %s\r\n\r\n%s", status, http.StatusText(status), len(body), id, body)
	c.l.metrics.observe("unparsed", status, 0)
	c.l.logger.LogAttrs(context.Background(), slog.LevelInfo, "request", slog.String("requestId", id), slog.String("route", "unparsed"),
		slog.Int("status", status), slog.String("error", text), slog.String("remoteAddr", hostOf(c.RemoteAddr())))
	if _, err := c.Conn.Write(out.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// parsePlainError recognises one of net/http's own error answers: one
// write of a status line, exactly net/http's two error headers, and a
// one-line text. Handlers' answers never look like this: net/http writes
// their headers sorted (Connection before Content-Type) with a Date.
func parsePlainError(p []byte) (status int, text string, ok bool) {
	rest, found := bytes.CutPrefix(p, []byte(plainPrefix))
	if !found {
		return 0, "", false
	}
	line, body, found := bytes.Cut(rest, []byte(plainHeaders))
	if !found || len(line) < 3 || bytes.ContainsAny(line, "\r\n") || bytes.ContainsAny(body, "\r\n") {
		return 0, "", false
	}
	status, err := strconv.Atoi(string(line[:3]))
	if err != nil || status < 400 || status > 599 {
		return 0, "", false
	}
	return status, string(body), true
}

// protocolErrorCode names each answer as the error table would.
func protocolErrorCode(status int, text string) (code, message string) {
	switch status {
	case http.StatusRequestHeaderFieldsTooLarge:
		return "headers_too_large", "the request's headers are too large"
	case http.StatusNotImplemented:
		return "unsupported_transfer_encoding", "the request's transfer encoding is not supported"
	case http.StatusHTTPVersionNotSupported:
		return "http_version_not_supported", "the request's HTTP version is not supported"
	default: // net/http's text is fixed, never the client's input: "400 Bad Request[: missing required Host header]"
		if _, detail, ok := strings.Cut(text, ": "); ok {
			return "malformed_request", "the request is not valid HTTP: " + detail
		}
		return "malformed_request", "the request is not valid HTTP"
	}
}

func hostOf(a net.Addr) string {
	if host, _, err := net.SplitHostPort(a.String()); err == nil {
		return host
	}
	return a.String()
}

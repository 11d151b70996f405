package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
)

// net/http answers some requests itself, before any handler sees them:
// headers over MaxHeaderBytes (431), a request that is not HTTP/1.x or
// lacks a Host header (400), an unknown Transfer-Encoding (501), an
// unsupported protocol version (505). Its answers are plain text with a
// fixed shape, written to the connection in one Write and followed by the
// connection's end. problemListener's connections recognise that shape
// and send the same status as an RFC 9457 problem instead, so a client
// reads every error of this API the same way. A handler's answer never has
// that shape (it always carries a Date header), so nothing else is touched.

// maxHeaderBytes bounds a request's head: its request line and headers.
const maxHeaderBytes = 16 << 10

// headerSlack is how far net/http reads past MaxHeaderBytes before it
// refuses a request (its "bufio slop").
const headerSlack = 4096

// cannedHeaders are the headers of net/http's own error answers, between
// the status line and the body.
const cannedHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// problemListener accepts connections that answer net/http's own errors as
// problems.
type problemListener struct{ net.Listener }

func (l problemListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &problemConn{Conn: c}, nil
}

// problemConn rewrites net/http's plain-text error answers.
type problemConn struct{ net.Conn }

func (c *problemConn) Write(b []byte) (int, error) {
	p, ok := cannedProblem(b)
	if !ok {
		return c.Conn.Write(b)
	}
	if _, err := c.Conn.Write(p); err != nil {
		return 0, err
	}
	return len(b), nil
}

// CloseWrite half-closes a TCP connection, as net/http does after a 431 so
// that the client reads the answer before the connection ends.
func (c *problemConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// cannedProblem returns the problem answer for one of net/http's own plain
// text error answers ("HTTP/1.1 431 Request Header Fields Too Large" and the
// headers above, the status again as the body).
func cannedProblem(b []byte) ([]byte, bool) {
	rest, ok := bytes.CutPrefix(b, []byte("HTTP/1.1 "))
	if !ok {
		return nil, false
	}
	status, body, ok := bytes.Cut(rest, []byte(cannedHeaders))
	if !ok || len(status) < 4 || status[3] != ' ' || bytes.ContainsAny(body, "\r\n") || bytes.ContainsAny(status, "\r\n") {
		return nil, false
	}
	code, err := strconv.Atoi(string(status[:3]))
	if err != nil || code < 400 || code > 599 {
		return nil, false
	}
	// "400 Bad Request: missing required Host header": the part after the
	// status text says what was wrong.
	_, why, _ := bytes.Cut(status[4:], []byte(": "))
	p := Problem{Type: "about:blank", Title: http.StatusText(code), Status: code, Code: CodeBadRequest}
	switch code {
	case http.StatusRequestHeaderFieldsTooLarge:
		p.Code = CodeHeadersTooLarge
		p.Detail = fmt.Sprintf("the request's headers are over %d KiB; send fewer or shorter ones", maxHeaderBytes>>10)
	case http.StatusNotImplemented:
		p.Detail = "the request's Transfer-Encoding is not one this server reads"
	case http.StatusHTTPVersionNotSupported:
		p.Detail = "the request is not HTTP/1.x or HTTP/2"
	default:
		p.Detail = "the request is not valid HTTP"
		if len(why) > 0 {
			p.Detail += ": " + string(why)
		}
	}
	js, err := json.Marshal(p)
	if err != nil {
		return nil, false
	}
	js = append(js, '\n')
	out := fmt.Appendf(nil, "HTTP/1.1 %d %s\r\nContent-Type: application/problem+json\r\nCache-Control: no-store\r\n"+
		"X-Content-Type-Options: nosniff\r\nContent-Length: %d\r\nConnection: close\r\n\r\n", code, http.StatusText(code), len(js))
	return append(out, js...), true
}

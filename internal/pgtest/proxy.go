package pgtest

import (
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// Proxy is a TCP link between a client and the test server that a test can
// cut, as a network that fails would: it forwards connections until Cut
// drops every one of them and refuses new ones, and Restore lets them
// through again. Freeze models the moment before a cut, when the server's
// answers are lost on the way: what a client sends still reaches the
// server, which acts on it, but nothing comes back. Silence models a link
// that loses every packet without a word: nothing gets through either way,
// and no connection ends until its client closes it.
type Proxy struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	conns  map[net.Conn]bool
	cut    bool // new connections are refused, open ones were dropped
	frozen bool // the server's answers are thrown away
	silent bool // everything is thrown away
}

// NewProxy starts a proxy to the server of dsn (a postgres:// URL) and
// returns it with dsn rewritten to go through it. It stops with the test.
func NewProxy(t testing.TB, dsn string) (*Proxy, string) {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil || !strings.HasPrefix(u.Scheme, "postgres") {
		t.Fatalf("a proxy needs a postgres:// URL, not %q", dsn)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("start the proxy: %v", err)
	}
	p := &Proxy{ln: ln, target: u.Host, conns: map[net.Conn]bool{}}
	go p.accept()
	t.Cleanup(p.close)
	u.Host = ln.Addr().String()
	return p, u.String()
}

func (p *Proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		cut := p.cut
		p.mu.Unlock()
		if cut {
			c.Close() // refused: the client sees its connection end at once
			continue
		}
		go p.forward(c)
	}
}

// forward links client c to the server until either side ends or a cut.
func (p *Proxy) forward(c net.Conn) {
	s, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	if p.cut {
		p.mu.Unlock()
		c.Close()
		s.Close()
		return
	}
	p.conns[c], p.conns[s] = true, true
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	go func() { p.copy(s, c, false); done <- struct{}{} }()
	go func() { p.copy(c, s, true); done <- struct{}{} }()
	<-done
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, s)
	p.mu.Unlock()
	c.Close()
	s.Close()
}

// copy copies src's bytes to dst, unless the link throws them away: the
// server's answers (answers) while frozen, everything while silent.
func (p *Proxy) copy(dst, src net.Conn, answers bool) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.mu.Lock()
			lost := p.silent || answers && p.frozen
			p.mu.Unlock()
			if !lost {
				if _, werr := dst.Write(buf[:n]); werr != nil {
					return
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// Freeze throws the server's answers away from now on, until Cut or
// Restore: a commit sent meanwhile is made but its client never hears so.
func (p *Proxy) Freeze() {
	p.mu.Lock()
	p.frozen = true
	p.mu.Unlock()
}

// Silence throws away everything either side sends, from now on until Cut
// or Restore; connections stay open.
func (p *Proxy) Silence() {
	p.mu.Lock()
	p.silent = true
	p.mu.Unlock()
}

// Cut drops every connection and refuses new ones until Restore.
func (p *Proxy) Cut() {
	p.mu.Lock()
	p.cut, p.frozen, p.silent = true, false, false
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
	p.mu.Unlock()
}

// Restore lets connections through again.
func (p *Proxy) Restore() {
	p.mu.Lock()
	p.cut, p.frozen, p.silent = false, false, false
	p.mu.Unlock()
}

func (p *Proxy) close() {
	p.ln.Close()
	p.Cut()
}

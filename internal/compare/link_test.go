package compare_test

// The link to PostgreSQL that BenchmarkServerTick/postgres-cut cuts: a TCP
// proxy between the market and the server that the benchmark controls.

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// link forwards every connection made to its address to target, until cut.
// A cut is what a network failure between two machines looks like to the
// client: every open connection breaks at once, and new ones are refused
// (nothing listens) until the link is restored, on the same address.
type link struct {
	addr, target string
	mu           sync.Mutex
	ln           net.Listener // nil while cut
	conns        map[net.Conn]bool
	wg           sync.WaitGroup
	// armed makes the next request a client sends cut the link once it
	// has reached the server (cutMidRequest), whose answer then never
	// comes back; fired is closed when it has.
	armed atomic.Bool
	fired chan struct{}
	// muted drops every answer from the server: set before the request
	// that fires the cut is sent on, so that its answer never gets back.
	muted atomic.Bool
}

// newLink starts a link on addr (host:port; port 0 picks a free one)
// forwarding to target.
func newLink(addr, target string) (*link, error) {
	l := &link{target: target, conns: map[net.Conn]bool{}, fired: make(chan struct{})}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("the link's address %s: %w", addr, err)
	}
	l.addr = ln.Addr().String()
	l.serve(ln)
	return l, nil
}

// serve accepts on ln until it is closed.
func (l *link) serve(ln net.Listener) {
	l.ln = ln
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			l.forward(c)
		}
	}()
}

// forward connects c to the target and copies both ways until either side
// ends or the link is cut.
func (l *link) forward(c net.Conn) {
	t, err := net.DialTimeout("tcp", l.target, 5*time.Second)
	if err != nil {
		c.Close()
		return
	}
	l.mu.Lock()
	if l.ln == nil { // cut while dialling
		l.mu.Unlock()
		c.Close()
		t.Close()
		return
	}
	l.conns[c], l.conns[t] = true, true
	l.mu.Unlock()
	pipe := func(dst, src net.Conn, request bool) {
		defer l.wg.Done()
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			if n > 0 {
				fire := request && l.armed.CompareAndSwap(true, false)
				if fire {
					l.muted.Store(true)
				}
				if !request && l.muted.Load() {
					break // an answer while the link is cut mid-request
				}
				_, werr := dst.Write(buf[:n])
				if fire {
					l.cut()
					close(l.fired)
				}
				if werr != nil {
					break
				}
			}
			if err != nil {
				break
			}
		}
		// One side ended: end the other, as a real link's peer would see.
		dst.Close()
		src.Close()
		l.mu.Lock()
		delete(l.conns, dst)
		delete(l.conns, src)
		l.mu.Unlock()
	}
	l.wg.Add(2)
	go pipe(t, c, true)
	go pipe(c, t, false)
}

// cutMidRequest cuts the link as soon as a client's next request has
// reached the server: the server may act on it (a commit), the client never
// learns the outcome. It is the worst moment for a link to break, and the
// one a market busy committing meets most; the returned channel is closed
// when the cut has happened.
func (l *link) cutMidRequest() <-chan struct{} {
	l.armed.Store(true)
	return l.fired
}

// cut breaks every connection and stops listening: a client's next read
// or write fails, and a new connection is refused.
func (l *link) cut() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ln == nil {
		return
	}
	l.ln.Close()
	l.ln = nil
	for c := range l.conns {
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetLinger(0) // a reset, not an orderly close
		}
		c.Close()
		delete(l.conns, c)
	}
}

// restore listens on the link's address again.
func (l *link) restore() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ln != nil {
		return nil
	}
	ln, err := net.Listen("tcp", l.addr)
	if err != nil {
		return fmt.Errorf("restore the link on %s: %w", l.addr, err)
	}
	l.muted.Store(false)
	l.serve(ln)
	return nil
}

// close cuts the link for good and waits for its goroutines.
func (l *link) close() {
	l.cut()
	l.wg.Wait()
}

// TestLinkCutsAndRestores: through the link an echo server answers; a cut
// breaks the open connection and refuses new ones; once restored, a new
// connection is answered again.
func TestLinkCutsAndRestores(t *testing.T) {
	echo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer echo.Close()
	var received atomic.Int64 // the bytes the server got
	go func() {
		for {
			c, err := echo.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 64)
				for {
					n, err := c.Read(buf)
					received.Add(int64(n))
					if n > 0 {
						if _, err := c.Write(buf[:n]); err != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	l, err := newLink("127.0.0.1:0", echo.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer l.close()
	roundTrip := func(c net.Conn) error {
		c.SetDeadline(time.Now().Add(2 * time.Second))
		if _, err := c.Write([]byte("ping")); err != nil {
			return err
		}
		buf := make([]byte, 4)
		if _, err := io.ReadFull(c, buf); err != nil {
			return err
		}
		if string(buf) != "ping" {
			return fmt.Errorf("echo %q", buf)
		}
		return nil
	}
	open, err := net.Dial("tcp", l.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close()
	if err := roundTrip(open); err != nil {
		t.Fatalf("before the cut: %v", err)
	}
	l.cut()
	if err := roundTrip(open); err == nil {
		t.Fatal("an open connection still answered after the cut")
	}
	if c, err := net.Dial("tcp", l.addr); err == nil {
		c.Close()
		t.Fatal("a new connection was accepted during the cut")
	} else if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("a new connection during the cut: %v, want it refused", err)
	}
	if err := l.restore(); err != nil {
		t.Fatal(err)
	}
	again, err := net.Dial("tcp", l.addr)
	if err != nil {
		t.Fatalf("after the restore: %v", err)
	}
	defer again.Close()
	if err := roundTrip(again); err != nil {
		t.Fatalf("after the restore: %v", err)
	}
	// Cut mid-request: the request reaches the server (it echoes it),
	// the answer never comes back, and the link is down.
	fired := l.cutMidRequest()
	before := received.Load()
	if err := roundTrip(again); err == nil {
		t.Fatal("a request answered across a cut made mid-request")
	}
	select {
	case <-fired:
	case <-time.After(2 * time.Second):
		t.Fatal("the cut mid-request did not happen")
	}
	for deadline := time.Now().Add(2 * time.Second); received.Load() < before+4 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if got := received.Load() - before; got != 4 {
		t.Fatalf("the server got %d bytes of the request cut mid-way, want all 4", got)
	}
	if c, err := net.Dial("tcp", l.addr); err == nil {
		c.Close()
		t.Fatal("a new connection was accepted after the cut mid-request")
	}
}

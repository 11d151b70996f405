package market_test

import (
	"errors"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
)

// Hold runs the main thread's changes under one lock: a reader that asks
// meanwhile reads the market as the changes leave it, never between them.
// From another goroutine it runs nothing.
func TestHoldKeepsTheReadersOutOfTheChanges(t *testing.T) {
	w := newWorld(t)
	before, err := w.svc.GetActiveListingsCount()
	must(t, err)
	read := make(chan int, 1)
	must(t, w.svc.Hold(func() {
		w.sell(w.alice, 0, 10)
		go func() {
			n, err := w.svc.GetActiveListingsCount()
			if err != nil {
				t.Error(err)
			}
			read <- n
		}()
		time.Sleep(20 * time.Millisecond) // the reader asks meanwhile
		w.sell(w.alice, 1, 50)
	}))
	if n := <-read; n != before+2 {
		t.Errorf("a reader during the hold counted %d listings, want the %d both changes leave", n, before+2)
	}
	ran := false
	errc := make(chan error)
	go func() { errc <- w.svc.Hold(func() { ran = true }) }()
	if err := <-errc; !errors.Is(err, market.ErrNotMainThread) || ran {
		t.Errorf("Hold from another goroutine: ran %v, %v; want ErrNotMainThread and nothing run", ran, err)
	}
}

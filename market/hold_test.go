package market_test

import (
	"errors"
	"strings"
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
	held, err := w.svc.Hold(func() {
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
	})
	if !held || err != nil {
		t.Fatalf("Hold with no reader inside: held %v, %v", held, err)
	}
	if n := <-read; n != before+2 {
		t.Errorf("a reader during the hold counted %d listings, want the %d both changes leave", n, before+2)
	}
	ran := false
	errc := make(chan error)
	go func() {
		_, err := w.svc.Hold(func() { ran = true })
		errc <- err
	}()
	if err := <-errc; !errors.Is(err, market.ErrNotMainThread) || ran {
		t.Errorf("Hold from another goroutine: ran %v, %v; want ErrNotMainThread and nothing run", ran, err)
	}
}

// A reader that keeps the lock past HoldWait (a thread the system stopped
// in the middle of a read) does not hold the main thread up: Hold runs
// nothing, the tick counts as one that put its changes off, the readers
// that come after are not locked out, and the next Hold, once the
// reader is done, runs.
func TestHoldPutsTheChangesOffWhenAReaderKeepsTheLock(t *testing.T) {
	w := newWorld(t)
	release := make(chan func())
	go func() { release <- market.HoldReadLock(w.svc) }()
	letGo := <-release
	start := time.Now()
	ran := false
	wall, _, err := w.svc.MeasureTick(func() {
		held, err := w.svc.Hold(func() { ran = true })
		if held || err != nil {
			t.Errorf("Hold with a reader keeping the lock: held %v, %v; want false, nil", held, err)
		}
	})
	must(t, err)
	if ran {
		t.Error("Hold ran its changes without the lock")
	}
	if wall < market.HoldWait || wall > market.HoldWait+50*time.Millisecond {
		t.Errorf("the tick took %v; want about HoldWait (%v)", wall, market.HoldWait)
	}
	if work := w.svc.TickWorkSince(start); work.PutOff != 1 || work.Ticks != 1 {
		t.Errorf("tick work: %d ticks, %d put off; want 1 and 1", work.Ticks, work.PutOff)
	} else if got, want := work.String(), "put their changes off, the market's lock busy over 1ms"; !strings.Contains(got, "; 1 "+want) {
		t.Errorf("tick work reads %q, want it to say \"; 1 %s\"", got, want)
	}
	// Giving up leaves nothing behind: a reader that comes now reads at
	// once, beside the one still inside.
	if _, err := w.svc.GetActiveListingsCount(); err != nil {
		t.Fatal(err)
	}
	letGo()
	held, err := w.svc.Hold(func() { ran = true })
	if !held || err != nil || !ran {
		t.Fatalf("Hold after the reader left: held %v, ran %v, %v", held, ran, err)
	}
}

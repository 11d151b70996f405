package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/seed"
)

// fullDisk is a store whose writes fail while full is set, as a full disk
// makes them.
type fullDisk struct {
	market.Store
	full bool
}

func (d *fullDisk) Commit(b *market.Batch) error {
	if d.full {
		return errors.New("database or disk is full (13)")
	}
	return d.Store.Commit(b)
}

func (d *fullDisk) ReserveListingIDs(n int) (int64, error) {
	if d.full {
		return 0, errors.New("database or disk is full (13)")
	}
	return d.Store.ReserveListingIDs(n)
}

// TestHeaderSaysWhenTheStoreFails: a sell refused by a full disk puts
// "● STORE FAILING" into the header, also at 80 columns; once changes are
// saved again (for market.StoreSettle) it goes and the status line says the
// store is back.
func TestHeaderSaysWhenTheStoreFails(t *testing.T) {
	disk := &fullDisk{Store: seededStore(t, seed.Options{Players: 40, Listings: 400, Days: 10, Rand: 7})}
	e := envOn(t, disk, 80, 24)
	header := func() string { return strings.SplitN(e.view(), "\n", 2)[0] }
	if !strings.Contains(header(), "● ready") {
		t.Fatalf("header %q", header())
	}
	disk.full = true
	e.key("s")
	e.key("enter")
	e.key("esc") // the refused sell keeps its dialog open
	e.tick()
	if h := header(); !strings.Contains(h, "● STORE FAILING") || strings.Contains(h, "● ready") {
		t.Fatalf("header while the store fails: %q", h)
	}
	if s := e.status(); s != "the store cannot save changes: database or disk is full (13); every change is refused until it can" {
		t.Fatalf("status %q", s)
	}
	disk.full = false
	e.key("s")
	e.key("enter")
	e.tick()
	if h := header(); !strings.Contains(h, "● STORE FAILING") {
		t.Fatalf("header as soon as a change is saved: %q; want the failure on until the store worked for a while", h)
	}
	e.clock.Advance(market.StoreSettle)
	e.tick()
	if h := header(); !strings.Contains(h, "● ready") || strings.Contains(h, "STORE") {
		t.Fatalf("header once a change is saved: %q", h)
	}
	if s := e.status(); s != "the store saves changes again, after 1 failed write" {
		t.Fatalf("status %q", s)
	}
}

// cutLink is a store behind a link that can be cut (market.Reacher).
type cutLink struct {
	market.Store
	cut atomic.Bool
}

var errRefused = fmt.Errorf("dial tcp 10.0.0.5:5432: connect: connection refused (%w)", market.ErrUnreachable)

func (l *cutLink) Commit(b *market.Batch) error {
	if l.cut.Load() {
		return errRefused
	}
	return l.Store.Commit(b)
}

func (l *cutLink) ReserveListingIDs(n int) (int64, error) {
	if l.cut.Load() {
		return 0, errRefused
	}
	return l.Store.ReserveListingIDs(n)
}

func (l *cutLink) Reach(context.Context) (market.Landed, error) {
	if l.cut.Load() {
		return market.Landed{}, errRefused
	}
	return market.Landed{}, nil
}

// TestHeaderSaysWhenTheStoreIsUnreachable: a sell refused because the link
// to the database is cut puts "● STORE UNREACHABLE" into the header, at 160
// and at 80 columns, and the status line says that every change is refused
// until the database answers; a second sell is refused at once. When the
// link is back the console notices by itself, with no key pressed: the
// status line says so and the header is ready again once the store has
// worked for a while.
func TestHeaderSaysWhenTheStoreIsUnreachable(t *testing.T) {
	for _, size := range [][2]int{{160, 48}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			link := &cutLink{Store: seededStore(t, seed.Options{Players: 40, Listings: 400, Days: 10, Rand: 7})}
			e := envOn(t, link, size[0], size[1])
			header := func() string { return strings.SplitN(e.view(), "\n", 2)[0] }
			link.cut.Store(true)
			e.key("s")
			e.key("enter")
			e.key("esc") // the refused sell keeps its dialog open
			e.tick()
			if h := header(); !strings.Contains(h, "● STORE UNREACHABLE") || strings.Contains(h, "● ready") {
				t.Fatalf("header while the store is unreachable: %q", h)
			}
			want := "the market's database cannot be reached: dial tcp 10.0.0.5:5432: connect: connection refused " +
				"(store: the database cannot be reached); every change is refused until it answers, which the market notices by itself"
			if s := e.status(); s != want {
				t.Fatalf("status %q", s)
			}
			away := e.clock.Now()
			e.key("s")
			e.key("enter") // refused at once, without asking the store
			e.key("esc")
			e.tick()
			h := header()
			if size[0] == 160 && !strings.Contains(h, "● STORE UNREACHABLE │ since "+away.UTC().Format("15:04:05")+", 1 refused │") ||
				!strings.Contains(h, "● STORE UNREACHABLE") || width(h) > size[0] {
				t.Fatalf("header after a change refused at once: %q", h)
			}
			e.clock.Advance(7 * time.Second)
			link.cut.Store(false)
			for deadline := time.Now().Add(3 * time.Second); !strings.Contains(e.status(), "answers again"); time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("3 s after the link came back: status %q, header %q", e.status(), header())
				}
				e.tick()
			}
			if s := e.status(); s != "the market's database answers again, after 7s and 1 refused change; changes go through" {
				t.Fatalf("status %q", s)
			}
			if h := header(); !strings.Contains(h, "● STORE FAILING") {
				t.Fatalf("header as soon as the store answers: %q; want the failure on until it worked for a while", h)
			}
			e.clock.Advance(market.StoreSettle)
			e.tick()
			if h := header(); !strings.Contains(h, "● ready") || strings.Contains(h, "STORE") {
				t.Fatalf("header once the store worked for a while: %q", h)
			}
		})
	}
}

package tui

import (
	"errors"
	"strings"
	"testing"

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

package tui

import (
	"fmt"
	"path/filepath"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
)

// BenchmarkOrdersPane measures what the Orders pane costs on the main
// thread when the market changed (Refresh: the book, its resting orders,
// the acting player's) and a 200×60 frame, with 10,000 open orders: 1,000
// buyers of ten each, 5,000 of them on the material shown.
func BenchmarkOrdersPane(b *testing.B) {
	st, err := sqlite.Open(filepath.Join(b.TempDir(), "m.db"), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	svc := market.New(st, market.Config{Clock: market.NewManualClock(fixedNow)})
	svc.BindMainThread()
	if err := svc.Enable(); err != nil {
		b.Fatal(err)
	}
	var first market.Player
	for i := range 1000 {
		p, err := svc.AddPlayer(market.NewPlayer{Name: fmt.Sprintf("Kupiec%d", i), Balance: 100_000})
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			first = p
		}
		for j := range 10 {
			mat := "STONE"
			if j%2 == 1 {
				mat = "OAK_LOG"
			}
			if _, err := svc.PlaceOrder(p, mat, 64, float64(1+(i*10+j)%500)/100, 0); err != nil {
				b.Fatal(err)
			}
		}
	}
	m := New(Options{Svc: svc})
	m.c.Actor = first
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	m.Update(keyMsg("7"))
	b.Cleanup(func() { m.Close(); svc.Close() })
	p := m.panes[6].(*ordersPane)
	if p.resting.Total != 5000 {
		b.Fatalf("%s: %d resting orders", p.material, p.resting.Total)
	}
	b.Run("refresh", func(b *testing.B) {
		for range b.N {
			p.Refresh(m.c)
		}
	})
	b.Run("view", func(b *testing.B) {
		for range b.N {
			_ = m.View()
		}
	})
	// What the Seller pane's line of the orders' escrow costs it.
	b.Run("held", func(b *testing.B) {
		for range b.N {
			_ = heldBy(m.c, first.ID)
		}
	})
}

package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
)

// TestConsoleBesideAServer: a console on a market file that rynek serve
// (here its service, on the same file) has open. The header says beside
// which process it runs; the server's sale arrives in the Events pane
// marked as the server's; a removal as admin in the console reaches the
// server; the clock keys are refused, naming the server.
func TestConsoleBesideAServer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.db")
	serverStore, err := sqlite.Open(path, sqlite.Options{Command: "serve"})
	must(t, err)
	server := market.New(serverStore, market.Config{Clock: market.NewManualClock(fixedNow), ListingCooldown: -1})
	must(t, server.BindMainThread())
	must(t, server.Enable())
	t.Cleanup(func() { server.Close() })
	_, err = server.AddPlayer(market.NewPlayer{Name: "Admin", Permissions: []string{market.PermAdmin}, Balance: 10})
	must(t, err)
	seller, err := server.AddPlayer(market.NewPlayer{Name: "Sprzedawca", Balance: 10,
		Items: []market.ItemStack{{Material: "DIAMOND", Amount: 8}, {Material: "OAK_LOG", Amount: 64}}})
	must(t, err)

	consoleStore, err := sqlite.Open(path, sqlite.Options{Command: "console"})
	must(t, err)
	e := envWith(t, consoleStore, market.Config{ListingCooldown: -1}, 160, 48)
	until := func(what string, done func() bool) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); !done(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("waiting for %s; the screen:\n%s", what, e.view())
			}
			e.send(followedMsg{})
			e.tick()
		}
	}
	beside := fmt.Sprintf("beside rynek serve, pid %d", os.Getpid())
	until("the header to say "+beside, func() bool { return strings.Contains(e.view(), beside) })

	ps, err := server.GetPlayer(seller.ID)
	must(t, err)
	l, err := server.SellItem(seller, *ps.Inventory[0], 120)
	must(t, err)
	e.key("6")
	until("the server's sale in the Events pane", func() bool {
		return strings.Contains(e.view(), fmt.Sprintf("ListingCreatedEvent        @serve listing #%d Diamond ×8 by Sprzedawca for 120.00", l.ID))
	})

	e.key("1")
	until("the listing in the Listings pane", func() bool { sel, ok := e.m.panes[0].Selected(); return ok && sel.ID == l.ID })
	e.key("X")
	e.confirm()
	if want := fmt.Sprintf("removed #%d as Admin → ListingRemovedEvent reason \"admin-removed\"", l.ID); e.status() != want {
		t.Fatalf("status %q, want %q", e.status(), want)
	}
	e.svc.Flush()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		_, err := server.Follow()
		must(t, err)
		if _, err := server.GetListing(l.ID); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the console's removal never reached the server")
		}
	}

	e.key("]")
	if want := fmt.Sprintf("the market's clock is shared with rynek serve, pid %d: it cannot be moved from here (close it, or move time there)", os.Getpid()); !strings.Contains(e.status(), want) {
		t.Fatalf("] beside the server: status %q, want %q", e.status(), want)
	}
	if off := e.clock.Offset(); off != 0 {
		t.Fatalf("the clock moved by %v", off)
	}
}

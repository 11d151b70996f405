package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/seed"
)

// TestHeaderShowsTheAPIAddress: with rynek --api, the header says where the
// HTTP API serves; on a narrow screen it gives way before the acting player.
func TestHeaderShowsTheAPIAddress(t *testing.T) {
	st := seededStore(t, seed.Options{Players: 5, Listings: 20, Days: 1, Rand: 7})
	svc := market.New(st, market.Config{Clock: market.NewManualClock(fixedNow)})
	svc.BindMainThread()
	if err := svc.Enable(); err != nil {
		t.Fatal(err)
	}
	m := New(Options{Svc: svc, ExportDir: t.TempDir(), APIAddr: "127.0.0.1:8080"})
	t.Cleanup(func() { m.Close(); svc.Close() })
	m.readHeader()
	if got := ansi.Strip(m.header(200)); !strings.Contains(got, "api http://127.0.0.1:8080") {
		t.Errorf("wide header %q", got)
	}
	if got := ansi.Strip(m.header(60)); strings.Contains(got, "api http://") || !strings.Contains(got, "acting as") {
		t.Errorf("narrow header %q", got)
	}
}

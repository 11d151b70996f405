package httpapi

import (
	"errors"
	"os"
	"os/exec"
	"testing"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/seed"
)

// TestBoardShowsAStoreFailure: while the market's store refuses changes,
// the board in a real browser shows a banner with the store's error; once
// a change is saved again the banner goes. The screenshot of the banner is
// written to $RYNEK_BOARD_STORE_SCREENSHOT when set.
func TestBoardShowsAStoreFailure(t *testing.T) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("RYNEK_REQUIRE_CHROMIUM") != "" {
			t.Fatal("chromium is not installed and RYNEK_REQUIRE_CHROMIUM is set")
		}
		t.Skip("SKIPPED: chromium is not installed (apt-get install chromium); the board page was not tested in a browser")
	}
	disk := &fullDisk{}
	e := newWrappedEnv(t, seed.Options{Listings: 30}, Options{}, func(st market.Store) market.Store { disk.Store = st; return disk })
	b := startBrowser(t, bin)
	b.navigate(e.srv.URL + "/")
	b.waitFor(`document.getElementById("status").className`, "live")
	b.waitFor(`String(document.getElementById("store").hidden)`, "true")

	players, err := e.svc.Players()
	if err != nil {
		t.Fatal(err)
	}
	page, err := e.svc.Query(market.Query{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	buyer := players[0]
	if buyer.ID == page.Listings[0].Seller {
		buyer = players[1]
	}
	disk.full.Store(true)
	if _, err := e.svc.Buy(buyer, page.Listings[0].ID); !errors.Is(err, market.ErrStore) {
		t.Fatalf("a purchase on a full disk: %v", err)
	}
	b.waitFor(`String(document.getElementById("store").hidden)`, "false")
	want := "Rynek nie może zapisywać zmian: database or disk is full (13). Od " + fixedNow.Local().Format("2.01.2006, 15:04:05") +
		", nieudane zapisy: 1. Kupno i sprzedaż są wstrzymane; oferty poniżej są aktualne."
	b.waitFor(`document.getElementById("store").textContent`, want)
	if path := os.Getenv("RYNEK_BOARD_STORE_SCREENSHOT"); path != "" {
		if err := os.WriteFile(path, b.screenshot(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot of the board with the banner: %s", path)
	}

	disk.full.Store(false)
	if _, err := e.svc.Buy(buyer, page.Listings[0].ID); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(market.StoreSettle)
	b.waitFor(`String(document.getElementById("store").hidden)`, "true")
}

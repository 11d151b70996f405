package httpapi

import (
	"errors"
	"testing"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/seed"
)

// TestSiteShowsAnUnreachableStore: while the market's store cannot reach
// its database, every page shows a banner saying since when, and that
// trading resumes by itself; once the database answers the banner goes,
// with no write needed (nor the failure's banner, which was the outage).
func TestSiteShowsAnUnreachableStore(t *testing.T) {
	chromium(t)
	link := &cutLink{}
	e := newWrappedEnv(t, seed.Options{Listings: 30}, Options{}, func(st market.Store) market.Store { link.Store = st; return link })
	b := newBrowser(t, e.srv.URL, desktop)
	b.open("/stats")
	b.waitText("#status", "na żywo")
	b.waitFor(`String(document.getElementById("store").hidden)`, "true")

	buyer, listing := e.buyerOfOne()
	link.cut.Store(true)
	if _, err := e.svc.Buy(buyer, listing); !errors.Is(err, market.ErrUnreachable) {
		t.Fatalf("a purchase on a cut link: %v", err)
	}
	b.waitFor(`String(document.getElementById("store").hidden)`, "false")
	want := "Rynek nie ma połączenia z bazą danych od " + fixedNow.Local().Format("2.01.2006, 15:04:05") +
		", odrzucone zmiany: 0. Kupno i sprzedaż są wstrzymane do jej powrotu, a wtedy wznowią się same; oferty poniżej są aktualne."
	b.waitText("#store", want)
	b.screenshot(artifacts(t), "store-unreachable-desktop-light")

	link.cut.Store(false)
	b.waitFor(`String(document.getElementById("store").hidden)`, "true")
}

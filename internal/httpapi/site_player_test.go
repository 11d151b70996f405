package httpapi

import (
	"testing"

	"github.com/google/uuid"
	"github.com/rynek/rynek/seed"
)

// TestSitePlayerWithNothing: a player who has never sold, bought or been
// rated has a profile that says so in words, not blanks or zeros alone:
// no rating, nothing on sale, no transactions.
func TestSitePlayerWithNothing(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 30}, Options{})
	p, _, err := e.svc.Join(uuid.New(), "Nowicjusz_7", nil)
	if err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t, e.srv.URL, phone)
	b.open("/player/" + p.ID.String())
	b.waitText("h1", "Nowicjusz_7")
	b.waitFor(`Array.from(document.querySelectorAll(".player-page dl.figures dd")).map((d) => d.textContent).join(" | ")`,
		"brak ocen | 0 | 0 | 0 | 0,00")
	b.waitText("#p-listings ~ div p.empty", "Nowicjusz_7 nic teraz nie sprzedaje.")
	b.waitText("#p-history ~ p.note", "0 transakcji")
	b.waitText("#p-history ~ div p.empty", "Bez transakcji.")
	b.clean("a new player's profile")
	b.accessible("a new player's profile")
}

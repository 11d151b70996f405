package tui

import (
	"strings"
	"testing"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/seed"
)

// heldCommits holds every commit until the test opens it: a slow disk or a
// database away, as the console's committer meets them.
type heldCommits struct {
	market.Store
	gate chan struct{}
}

func (g *heldCommits) Commit(b *market.Batch) error {
	<-g.gate
	return g.Store.Commit(b)
}

// TestAPurchaseNotSavedYetShowsAsSaving: the console commits behind its
// tick, so a purchase is made before the store holds it. Until then the
// status line says its event comes once it is saved, and the Transactions
// pane (all states: the completed list, getCompletedTransactions, holds
// only what is saved) marks it "…" and says it is saving; once saved, it
// is ✓ COMPLETED.
func TestAPurchaseNotSavedYetShowsAsSaving(t *testing.T) {
	g := &heldCommits{Store: seededStore(t, seed.Options{Players: 10, Listings: 40, Days: 1, Rand: 4, Auctions: -1, Orders: -1}), gate: make(chan struct{})}
	e := envWith(t, g, market.Config{ListingCooldown: -1, CommitBehind: true}, 160, 48)
	t.Cleanup(func() {
		select {
		case <-g.gate:
		default:
			close(g.gate) // Close waits for the commits
		}
	})
	l, _ := e.m.panes[0].Selected()
	e.m.c.Actor = otherThan(t, e, l)
	e.key("b")
	e.confirm()
	if !strings.HasSuffix(e.status(), "→ TransactionCompletedEvent once saved") {
		t.Fatalf("status %q; want the event promised once saved", e.status())
	}
	e.key("5")
	e.key("a") // all states: the completed list holds only what is saved
	e.key("enter")
	e.mustContain("… COMPLETED")
	e.mustContain("saving: not in the store yet, undone if it refuses")
	close(g.gate)
	if r := e.svc.Flush(); len(r) != 0 {
		t.Fatalf("refused %+v", r)
	}
	e.tick()
	e.mustContain("✓ COMPLETED")
	if strings.Contains(e.view(), "saving") {
		t.Fatalf("the saved purchase still says saving:\n%s", e.view())
	}
}

package tui

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rynek/rynek/internal/wire"
	"github.com/rynek/rynek/market"
)

func TestEventsFilterPauseAndExport(t *testing.T) {
	e := newEnv(t, 120, 40)
	l := e.oneEventOfEachKind()
	e.key("6")
	p := e.m.panes[5].(*eventsPane)
	if p.visible() != 3 {
		t.Fatalf("%d events visible", p.visible())
	}
	// Filter cycles through the eight kinds, each removal reason, and back
	// to all.
	for _, f := range []struct {
		show string
		n    int
	}{
		{"ListingCreatedEvent", 1}, {"ListingRemovedEvent", 1}, {"ListingRemovedEvent reason=removed", 1},
		{"ListingRemovedEvent reason=admin-removed", 0}, {"ListingRemovedEvent reason=force-expire", 0},
		{"TransactionCompletedEvent", 1}, {"BidPlacedEvent", 0}, {"AuctionEndedEvent", 0},
		{"BuyOrderPlacedEvent", 0}, {"BuyOrderFilledEvent", 0}, {"BuyOrderClosedEvent", 0},
	} {
		e.key("f")
		if p.visible() != f.n || f.n > 0 && !strings.HasPrefix(f.show, p.at(0).EventName()) {
			t.Fatalf("filter %s: %d visible", f.show, p.visible())
		}
		e.mustContain("showing " + f.show)
	}
	e.key("f")
	// Pause freezes the view while events keep arriving (none dropped).
	e.key("space")
	e.m.c.Actor = otherThan(t, e, l)
	e.key("1")
	e.key("s")
	e.key("enter")
	e.tick()
	e.key("6")
	if p.visible() != 3 || len(e.m.log.all) != 4 {
		t.Fatalf("paused view %d, log %d", p.visible(), len(e.m.log.all))
	}
	e.mustContain("PAUSED (1 new since)")
	e.key("space")
	if p.visible() != 4 {
		t.Fatalf("after resume %d", p.visible())
	}
	// Export writes one JSON object per event with the getters' values.
	e.key("e")
	if !strings.HasPrefix(e.status(), "exported 4 events to ") {
		t.Fatalf("status %q", e.status())
	}
	path := strings.TrimPrefix(e.status(), "exported 4 events to ")
	if filepath.Dir(path) != p.exportDir {
		t.Fatalf("exported to %s", path)
	}
	f, err := os.Open(path)
	must(t, err)
	defer f.Close()
	var recs []wire.Event
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r wire.Event
		must(t, json.Unmarshal(sc.Bytes(), &r))
		recs = append(recs, r)
	}
	if len(recs) != 4 || recs[0].Seq != 1 || recs[1].Reason != "removed" || recs[2].Transaction == nil ||
		recs[2].Transaction.State != "COMPLETED" || recs[0].Listing == nil {
		t.Fatalf("records %+v", recs)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("export mode %v", fi.Mode().Perm())
	}
}

// The Events pane names items as everywhere else in the console, by their
// display name: a purchase read "CHERRY_SIGN×7" beside "Acacia Button ×32".
func TestEventsNameItemsAsEverywhere(t *testing.T) {
	e := newEnv(t, 160, 48)
	l, _ := e.m.panes[0].Selected()
	e.m.c.Actor = otherThan(t, e, l)
	e.key("b")
	e.confirm()
	e.tick()
	e.key("6")
	name := fmt.Sprintf("%s ×%d", itemName(l.Item), l.Item.Amount)
	if itemName(l.Item) == l.Item.Material {
		t.Fatalf("listing #%d has no display name to tell apart", l.ID)
	}
	e.mustContain("TransactionCompletedEvent")
	e.mustContain(name)
	if v := e.view(); strings.Contains(v, l.Item.Material+"×") {
		t.Fatalf("the purchase shows the material key %s", l.Item.Material)
	}

	// A price alert's notification too ("alert: #id DIAMOND ×3").
	buyer := e.m.c.Actor
	_, err := e.svc.AddAlert(buyer.ID, "diamond", 999)
	must(t, err)
	seller, err := e.svc.PlayerByName(l.SellerName)
	must(t, err)
	given, _, err := e.svc.GiveItem(seller.ID, market.ItemStack{Material: "DIAMOND", Amount: 3})
	must(t, err)
	listed, err := e.svc.SellItem(seller, given, 30)
	must(t, err)
	e.tick()
	e.key("3")
	for range 3 {
		e.key("v")
	}
	e.mustContain(fmt.Sprintf(`alert "diamond": #%d Diamond ×3 for 30.00`, listed.ID))
}

// An export of no events says so and writes no file; it said "✓ exported 0
// events" over an empty file.
func TestEventsExportOfNothingSaysSo(t *testing.T) {
	e := newEnv(t, 120, 40)
	e.key("6")
	p := e.m.panes[5].(*eventsPane)
	e.key("e")
	if want := "nothing to export: no events in this view (showing all published kinds); no file written"; e.status() != want || !e.m.status.err {
		t.Fatalf("status %q (error %v), want %q", e.status(), e.m.status.err, want)
	}
	e.key("1")
	e.key("s")
	e.key("enter")
	e.tick()
	e.key("6")
	for range 5 { // ListingRemovedEvent reason=force-expire
		e.key("f")
	}
	e.key("e")
	if want := "nothing to export: no events in this view (showing ListingRemovedEvent reason=force-expire); no file written"; e.status() != want {
		t.Fatalf("status %q, want %q", e.status(), want)
	}
	e.mustContain("No event matches the filter: f cycles it.")
	if files, _ := os.ReadDir(p.exportDir); len(files) != 0 {
		t.Fatalf("files written: %v", files)
	}
}

// TestEventsCursorEndAndEnter: Events has End/G and Enter, and the cursor
// stays on its event while new ones arrive.
func TestEventsCursorEndAndEnter(t *testing.T) {
	e := newEnv(t, 120, 40)
	for range 3 {
		e.key("s")
		e.key("enter")
	}
	e.tick()
	e.key("6")
	p := e.m.panes[5].(*eventsPane)
	e.key("G")
	oldest, _ := p.selected()
	if oldest.Seq() != 1 {
		t.Fatalf("G selects seq %d", oldest.Seq())
	}
	e.key("k")
	mine, _ := p.selected()
	// The new sale's seq: after the log entries of alerts it fires.
	var last uint64
	e.svc.Subscribe(func(ev market.Event) { last = ev.Seq() })
	e.key("1")
	e.key("s")
	e.key("enter")
	e.tick()
	e.key("6")
	if now, _ := p.selected(); now.Seq() != mine.Seq() {
		t.Fatalf("the cursor moved from seq %d to %d as an event arrived", mine.Seq(), now.Seq())
	}
	e.key("g")
	if newest, _ := p.selected(); last == 0 || newest.Seq() != last {
		t.Fatalf("g selects seq %d, the newest event is seq %d", newest.Seq(), last)
	}
	e.key("enter")
	d, ok := e.m.dialog.(*pagerDialog)
	if !ok || !strings.HasPrefix(d.title, "Listing #") {
		t.Fatalf("enter opened %T", e.m.dialog)
	}
}

// TestEventsSayWhySeqsSkip: a purchase logs its steps, which no listener
// receives, so the Events pane's seqs jump (#2, then #8); its head says
// what the missing numbers are.
func TestEventsSayWhySeqsSkip(t *testing.T) {
	e := newEnv(t, 160, 48)
	e.oneEventOfEachKind()
	e.key("6")
	e.mustContain("3 events · showing all published kinds · created 1 · removed 1 · completed 1 · #seq skips internal entries: expiry, purchase steps, claims, players, issuance")
	removed, completed := e.m.log.all[1], e.m.log.all[2]
	if completed.Seq() == removed.Seq()+1 {
		t.Fatalf("no seq skipped: %d then %d", removed.Seq(), completed.Seq())
	}
	e.mustContain(fmt.Sprintf("#%-6d ListingRemovedEvent", removed.Seq()))
	e.mustContain(fmt.Sprintf("#%-6d TransactionCompletedEvent", completed.Seq()))
}

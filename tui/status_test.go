package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// The status history (L) stamps its entries with the market's clock, the
// one the header shows and QA moves with ] and }, in UTC like the header:
// it stamped the machine's clock, so after } a day later read the same.
func TestStatusHistoryStampsTheMarketClock(t *testing.T) {
	e := newEnv(t, 120, 40)
	e.wall.advance(90 * time.Second) // the machine's clock: not the market's
	e.key("}")
	e.key("]")
	e.key("L")
	lines := strings.Split(e.view(), "\n")
	var got []string
	for _, l := range lines {
		if i := strings.Index(l, "│ "); i >= 0 && strings.Contains(l, "clock +") {
			got = append(got, strings.TrimSpace(l[i+len("│ "):]))
		}
	}
	if len(got) != 2 || !strings.HasPrefix(got[0], "11-02 13:00:00 ◆ clock +1h") || !strings.HasPrefix(got[1], "11-02 12:00:00 ◆ clock +1d") {
		t.Fatalf("history entries %q", got)
	}
	e.mustContain("2026-11-02 13:00:00 UTC") // the header's clock
	e.mustContain("Status history (newest first, the market's clock, UTC)")
}

// TestARefusalGivesWayToTheNextKey: a refusal leaves the footer with the
// next key, which is another action: a book shown without a word, a pane
// switched to, a tab clicked. It stays findable in the status history
// (L), and a key meeting a refusal of its own shows that one.
func TestARefusalGivesWayToTheNextKey(t *testing.T) {
	e, _, buyer := orderEnv(t, 160, 48)
	_, err := e.svc.PlaceOrder(buyer, "DIAMOND", 1, 5, 0)
	must(t, err)
	refused := func(text string) {
		t.Helper()
		e.key("7")
		e.key("c")
		e.typeText(text)
		e.key("enter")
		e.mustContain(`✗ no material is called "` + text + `"`)
	}
	footer := func() string {
		lines := strings.Split(e.view(), "\n")
		return lines[len(lines)-2]
	}

	refused("nothing1")
	e.key(".") // the next material with orders: done, without a word
	e.mustContain("Order book · Diamond (DIAMOND)")
	if f := strings.TrimSpace(footer()); f != "" {
		t.Fatalf("after . the footer says %q", f)
	}

	refused("nothing2")
	e.key("1") // another pane
	if f := strings.TrimSpace(footer()); f != "" {
		t.Fatalf("on pane 1 the footer says %q", f)
	}

	refused("nothing3")
	tabs := strings.Split(e.view(), "\n")[1]
	e.send(tea.MouseClickMsg{X: strings.Index(tabs, "3 Seller") + 1, Y: 1}) // all ASCII before it: bytes are cells
	e.mustContain("Sprzedawca  ")                                           // the Seller pane
	if f := strings.TrimSpace(footer()); f != "" {
		t.Fatalf("after a click on a tab the footer says %q", f)
	}

	refused("nothing4")
	e.key("c") // a key with a refusal of its own shows it
	e.typeText("nothing5")
	e.key("enter")
	e.mustContain(`✗ no material is called "nothing5"`)
	e.key("L")
	for _, n := range []string{"nothing1", "nothing2", "nothing3", "nothing4", "nothing5"} {
		e.mustContain(`✗ no material is called "` + n + `"`)
	}
}

package tui

import (
	"fmt"
	"path/filepath"
	"regexp"
	"testing"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/playertext"
	"github.com/rynek/rynek/market/sqlite"
)

// sgrOnly matches the only escape sequences our own rendering emits.
var sgrOnly = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// assertClean checks a rendered frame: after removing our SGR styling,
// nothing unsafe may remain.
func assertClean(t *testing.T, where, content string) {
	t.Helper()
	rest := sgrOnly.ReplaceAllString(content, "")
	if i, r, found := playertext.Unsafe(rest); found {
		lo := max(0, i-20)
		t.Fatalf("%s: %U reaches the screen near %q", where, r, rest[lo:min(len(rest), i+20)])
	}
}

func TestHostileTextNeverReachesTheTerminal(t *testing.T) {
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "h.db"), sqlite.Options{})
	must(t, err)
	b, err := market.NewBulk(st)
	must(t, err)
	var ids []uuid.UUID
	var accepted []string
	for _, h := range playertext.Hostile {
		if utf8.ValidString(h) { // the market refuses invalid UTF-8 at input (raw \x9b): it never gets this far
			accepted = append(accepted, h)
		}
	}
	for i, h := range accepted {
		id := uuid.New()
		ids = append(ids, id)
		must(t, b.AddPlayer(market.Player{ID: id, Name: "P" + fmt.Sprint(i) + h}, 1_000_000_00))
		item := market.ItemStack{Material: "DIAMOND_SWORD", Amount: 1, DisplayName: h, Lore: []string{h, "ok " + h},
			Enchantments: []market.Enchantment{{Key: "sharpness", Level: 5}}}
		must(t, b.SetSlot(id, 0, item))
		must(t, b.SetSlot(id, 1, market.ItemStack{Material: "DIAMOND", Amount: 64, DisplayName: h}))
		_, err := b.AddListing(id, item, 1000, fixedNow.Add(-1000), fixedNow.Add(7*24*3600e9))
		must(t, err)
	}
	for i := range accepted {
		_, err := b.AddTransaction(market.HistoricSale{Buyer: ids[i], Seller: ids[(i+1)%len(ids)], Price: 500, Fee: 25,
			State: market.StateCompleted, At: fixedNow.Add(-3600e9),
			Item: market.ItemStack{Material: "DIAMOND", Amount: 1, DisplayName: accepted[i]}})
		must(t, err)
	}
	must(t, b.Finish())
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		e := envOn(t, st, size[0], size[1])
		e.m.c.Actor = market.Player{ID: ids[0]}
		// Produce events with hostile content, then look at every screen.
		e.key("s")
		assertClean(t, "sell dialog", e.m.View().Content)
		e.key("enter")
		e.key("x")
		assertClean(t, "confirm dialog", e.m.View().Content)
		e.confirm()
		e.tick()
		e.key("p")
		assertClean(t, "player picker", e.m.View().Content)
		e.key("esc")
		for i := range e.m.panes {
			e.key(fmt.Sprint(i + 1))
			if i == 1 {
				e.key("/")
				e.typeText("p")
				e.key("esc")
			}
			assertClean(t, e.m.panes[i].Title(), e.m.View().Content)
			e.key("enter")
			assertClean(t, e.m.panes[i].Title()+" detail", e.m.View().Content)
			e.key("esc")
			if i == 2 {
				e.key("v")
				assertClean(t, "seller inventory", e.m.View().Content)
				e.key("v")
				assertClean(t, "seller history", e.m.View().Content)
			}
		}
		if title := e.m.View().WindowTitle; title != "Rynek" {
			t.Fatalf("window title %q", title)
		}
		e.m.Close()
		e.svc.Close()
		st, _ = sqlite.Open(st.Path(), sqlite.Options{})
	}
}

// FuzzRenderMC: whatever the input, the styled text is safe and its text
// is exactly playertext.Plain, which the search index folds.
func FuzzRenderMC(f *testing.F) {
	for _, h := range playertext.Hostile {
		f.Add(h)
	}
	f.Add("§6Gold §lBold§r plain 👩‍💻 Łódź")
	f.Fuzz(func(t *testing.T, s string) {
		out := RenderMC(s, lipgloss.NewStyle().Bold(true))
		assertClean(t, "RenderMC", out)
		if text := ansiStrip(out); text != playertext.Plain(s) {
			t.Fatalf("RenderMC(%q) shows %q, Plain says %q", s, text, playertext.Plain(s))
		}
	})
}

func ansiStrip(s string) string { return sgrOnly.ReplaceAllString(s, "") }

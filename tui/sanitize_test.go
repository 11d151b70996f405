package tui

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
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

// hostileLoad opens a new market and begins its bulk load, for a test to
// fill with playertext.Hostile, and returns the part of the corpus the
// market takes: it refuses invalid UTF-8 (raw \x9b) at input, so that
// never gets this far.
func hostileLoad(t *testing.T) (*sqlite.Store, *market.Bulk, []string) {
	t.Helper()
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "h.db"), sqlite.Options{})
	must(t, err)
	b, err := market.NewBulk(st)
	must(t, err)
	var accepted []string
	for _, h := range playertext.Hostile {
		if utf8.ValidString(h) {
			accepted = append(accepted, h)
		}
	}
	return st, b, accepted
}

func TestHostileTextNeverReachesTheTerminal(t *testing.T) {
	st, b, accepted := hostileLoad(t)
	var ids []uuid.UUID
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
		// Buy orders by hostile names: the Orders pane, its dialogs and
		// the order events show them.
		for _, id := range ids {
			if _, err := e.svc.PlaceOrder(market.Player{ID: id}, "DIAMOND", 1, 0.01, 0); err != nil {
				t.Fatal(err)
			}
		}
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
			if e.m.panes[i].Title() == "Orders" {
				for _, k := range []string{"f", "d", "o"} {
					e.key("down")
					e.key(k)
					if e.m.dialog == nil {
						t.Fatalf("%s on the Orders pane opened no dialog: %q", k, e.status())
					}
					assertClean(t, "Orders pane, "+k, e.m.View().Content)
					e.key("esc")
				}
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

// TestARefusalNamingAHostilePlayerIsClean: the market's refusals name
// players ("X has 1.00, less than the withdrawal of 5.00", "X must wait
// 60s before listing again"), and a name can hold anything a bulk load
// brought. The status line, the status history and a dialog kept open by
// the refusal show it made safe, as every pane shows the name.
func TestARefusalNamingAHostilePlayerIsClean(t *testing.T) {
	st, b, accepted := hostileLoad(t)
	var players []market.Player
	for i, h := range accepted {
		p := market.Player{ID: uuid.New(), Name: "P" + fmt.Sprint(i) + h}
		must(t, b.AddPlayer(p, 1_00))
		must(t, b.SetSlot(p.ID, 0, market.ItemStack{Material: "DIAMOND", Amount: 64}))
		must(t, b.SetSlot(p.ID, 1, market.ItemStack{Material: "DIAMOND", Amount: 64}))
		players = append(players, p)
	}
	must(t, b.Finish())
	e := envWith(t, st, market.Config{ListingCooldown: time.Minute}, 160, 48)
	sell := func() {
		e.key("s")
		for range 12 {
			e.key("backspace")
		}
		e.typeText("10")
		e.key("enter")
	}
	for _, p := range players {
		e.m.c.Actor = p
		e.key("$")
		e.key("right") // withdraw
		e.typeText("5")
		e.key("enter") // more than the balance: refused, naming the player
		if !strings.HasSuffix(e.status(), "less than the withdrawal of 5.00 [INSUFFICIENT_FUNDS]") {
			t.Fatalf("%q: status %q", p.Name, e.status())
		}
		assertClean(t, fmt.Sprintf("the withdrawal refused to %q", p.Name), e.m.View().Content)
		e.key("esc")
		sell()
		sell() // within the cooldown: refused, naming the player; the dialog stays
		if _, ok := e.m.dialog.(*sellDialog); !ok || !strings.HasSuffix(e.status(), "[COOLDOWN]") {
			t.Fatalf("%q: dialog %T, status %q", p.Name, e.m.dialog, e.status())
		}
		assertClean(t, fmt.Sprintf("the sale refused to %q", p.Name), e.m.View().Content)
		e.key("esc")
		e.key("L")
		assertClean(t, fmt.Sprintf("the status history after %q's refusals", p.Name), e.m.View().Content)
		e.key("esc")
	}
}

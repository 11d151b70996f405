package tui

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
)

// The escape-injection corpus: what hostile players put in names and lore
// (bubbletea.md §6).
var hostile = []string{
	"\x1b]52;c;ZXZpbA==\x07", // OSC 52 clipboard write
	"\x1b]0;pwned\x07",       // window title
	"\x1b[2J\x1b[H",          // clear screen, cursor home
	"\x1bP+q\x1b\\",          // DCS
	"\x1b_Gpayload\x1b\\",    // APC (kitty graphics)
	"\x1b]8;;https://evil.example\x07link\x1b]8;;\x07", // OSC 8 hyperlink
	"\x9b31m",                        // raw 8-bit C1 CSI
	"\u009b31m",                      // C1 as a code point
	"SAFE-TEXT\rEVIL",                // carriage return overwrite
	"back\bspace\a bell",             // BS, BEL
	"\u202egnp.exe",                  // bidi override
	"zero\u200bwidth\u2066iso\u2069", // format characters
	"tab\tnew\nline\vvt\fff",         // whitespace controls
	"\x7fdel",                        // DEL
	"§x§k§lobf §4red §zbad §",        // § codes, unknown and trailing
}

// sgrOnly matches the only escape sequences our own rendering emits.
var sgrOnly = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// assertClean checks a rendered frame: after removing our SGR styling, no
// escape, control, C1, bidi or invisible format character may remain.
func assertClean(t *testing.T, where, content string) {
	t.Helper()
	rest := sgrOnly.ReplaceAllString(content, "")
	for i, r := range rest {
		bad := r == 0x1b || (r < 0x20 && r != '\n') || r == 0x7f || (r >= 0x80 && r <= 0x9f) ||
			(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f ||
			(unicode.Is(unicode.Cf, r) && r != 0x200d) || r == utf8.RuneError && !strings.ContainsRune(rest[i:i+3], '\uFFFD')
		if bad {
			lo := max(0, i-20)
			t.Fatalf("%s: control %U reaches the screen near %q", where, r, rest[lo:min(len(rest), i+20)])
		}
	}
}

func TestHostileTextNeverReachesTheTerminal(t *testing.T) {
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "h.db"), sqlite.Options{})
	must(t, err)
	b, err := market.NewBulk(st)
	must(t, err)
	var ids []uuid.UUID
	var accepted []string
	for _, h := range hostile {
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

// FuzzSanitize: whatever the input, the output is valid UTF-8 without
// controls, and printable ASCII passes untouched.
func FuzzSanitize(f *testing.F) {
	for _, h := range hostile {
		f.Add(h)
	}
	f.Add("👩‍💻 café 東京 Łódź")
	f.Fuzz(func(t *testing.T, s string) {
		out := Sanitize(s)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 from %q", s)
		}
		assertClean(t, "Sanitize", out)
		if isPlain(s) && out != s {
			t.Fatalf("plain text changed: %q -> %q", s, out)
		}
		assertClean(t, "RenderMC", RenderMC(s, lipgloss.NewStyle().Bold(true)))
	})
}

func TestSanitizeKeepsLegitimateText(t *testing.T) {
	for _, s := range []string{"👩‍💻 café 東京", "Łódź Księżycowa", "Grzegorz_Brzęczyszczykiewicz", "a b", "§6Legendarny Miecz"} {
		if got := Sanitize(s); got != s {
			t.Errorf("Sanitize(%q) = %q", s, got)
		}
	}
	if got := Sanitize("SAFE-TEXT\rEVIL"); got != "SAFE-TEXT EVIL" {
		t.Errorf("CR: %q", got)
	}
	if got := ansiStrip(RenderMC("§6Gold §lBold§r plain", lipgloss.NewStyle())); got != "Gold Bold plain" {
		t.Errorf("RenderMC text %q", got)
	}
}

func ansiStrip(s string) string { return sgrOnly.ReplaceAllString(s, "") }

package tui

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
)

// TestJoinersAndEmojiWidths: rows with emoji sequences fit the screen under
// both width methods (playertext's tests strip joiners outside emoji
// sequences).
func TestJoinersAndEmojiWidths(t *testing.T) {
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "e.db"), sqlite.Options{})
	must(t, err)
	b, err := market.NewBulk(st)
	must(t, err)
	for i := range 30 {
		p := market.Player{ID: uuid.New(), Name: fmt.Sprintf("👩\u200d💻👨\u200d👩\u200d👧%d", i)}
		must(t, b.AddPlayer(p, 1000_00))
		_, err := b.AddListing(p.ID, market.ItemStack{Material: "DIAMOND", Amount: 1, DisplayName: "🏳️\u200d🌈 👩\u200d💻 flag"}, 100, fixedNow, fixedNow.Add(24*time.Hour))
		must(t, err)
	}
	must(t, b.Finish())
	e := envOn(t, st, 80, 24)
	t.Cleanup(func() { cells = ansi.WcWidth })
	for _, method := range []string{"wcwidth", "grapheme"} {
		if method == "grapheme" {
			e.send(tea.ModeReportMsg{Mode: ansi.ModeUnicodeCore, Value: ansi.ModeSet})
		}
		for _, k := range []string{"1", "b"} {
			e.key(k)
			checkScreen(t, e.m.View().Content, 80, 24)
		}
		e.key("esc")
	}
}

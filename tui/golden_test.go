package tui

import (
	"fmt"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"
)

// TestGoldenPanes records every pane at 80×24 and 160×48 (View().Content,
// with styling: lipgloss v2 renders the same bytes in every environment).
// Regenerate with: go test ./tui -run TestGoldenPanes -update
func TestGoldenPanes(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		e := newEnv(t, size[0], size[1])
		// One of each event, so that the Events pane has content.
		e.key("s")
		e.key("enter")
		e.key("x")
		e.confirm()
		// A buy order, so that the Orders pane shows a book.
		if _, err := e.svc.PlaceOrder(e.m.c.Actor, "OAK_LOG", 100, 0.05, 0); err != nil {
			t.Fatal(err)
		}
		e.tick()
		for i, p := range e.m.panes {
			t.Run(fmt.Sprintf("%s_%dx%d", p.Title(), size[0], size[1]), func(t *testing.T) {
				e.key(fmt.Sprint(i + 1))
				if i == 1 { // type a query and leave the box
					e.key("/")
					e.typeText("diamond sword")
					e.key("esc")
					// The measured query time varies run to run; pin it.
					e.m.panes[1].(*searchPane).table.took = 42 * time.Microsecond
				}
				content := e.m.View().Content
				checkScreen(t, content, size[0], size[1])
				golden.RequireEqual(t, []byte(content))
			})
		}
		t.Run(fmt.Sprintf("Help_%dx%d", size[0], size[1]), func(t *testing.T) {
			e.key("1")
			e.key("?")
			content := e.m.View().Content
			checkScreen(t, content, size[0], size[1])
			golden.RequireEqual(t, []byte(content))
			e.key("?")
		})
		t.Run(fmt.Sprintf("BuyDialog_%dx%d", size[0], size[1]), func(t *testing.T) {
			e.key("1")
			e.key("b")
			e.key("3")
			content := e.m.View().Content
			checkScreen(t, content, size[0], size[1])
			golden.RequireEqual(t, []byte(content))
			e.key("esc")
		})
		t.Run(fmt.Sprintf("EconomyDialog_%dx%d", size[0], size[1]), func(t *testing.T) {
			e.key("$")
			e.key("right")
			e.key("right")
			e.typeText("EMERALD 16")
			content := e.m.View().Content
			checkScreen(t, content, size[0], size[1])
			golden.RequireEqual(t, []byte(content))
			e.key("esc")
		})
	}
}

// TestEveryPaneFitsEverySize resizes through small and odd sizes.
func TestEveryPaneFitsEverySize(t *testing.T) {
	e := newEnv(t, 80, 24)
	for _, size := range [][2]int{{80, 24}, {81, 25}, {100, 30}, {120, 40}, {160, 48}, {200, 60}, {80, 24}} {
		e.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		for i := range e.m.panes {
			e.key(fmt.Sprint(i + 1))
			if i == 1 {
				e.key("esc")
			}
			checkScreen(t, e.m.View().Content, size[0], size[1])
			e.key("enter") // detail views too
			checkScreen(t, e.m.View().Content, size[0], size[1])
			e.key("esc")
		}
	}
}

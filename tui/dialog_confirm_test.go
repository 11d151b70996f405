package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

func TestBuyNeedsGraceThenCompletes(t *testing.T) {
	e := newEnv(t, 120, 40)
	l, ok := e.m.panes[0].Selected()
	if !ok {
		t.Fatal("no listing selected")
	}
	e.m.c.Actor = otherThan(t, e, l)
	e.key("b")
	e.key("y") // within the grace period: ignored
	if e.m.dialog == nil {
		t.Fatal("y confirmed during the grace period")
	}
	e.confirm()
	if e.m.dialog != nil {
		t.Fatal("dialog still open")
	}
	if !strings.Contains(e.status(), "COMPLETED") || !strings.Contains(e.status(), "TransactionCompletedEvent") {
		t.Fatalf("status %q", e.status())
	}
	e.tick()
	if len(e.m.log.byKind[kindCompleted]) != 1 {
		t.Fatalf("completed events %d", len(e.m.log.byKind[kindCompleted]))
	}
}

func TestArmedFailuresInThreeKeystrokes(t *testing.T) {
	cases := []struct {
		key, state, code string
	}{
		{"1", "FAILED", "INJECTED:CREATED"},
		{"2", "FAILED", "INJECTED:LISTING_RESERVED"},
		{"3", "ROLLED_BACK", "INJECTED:MONEY_WITHDRAWN"},
		{"4", "ROLLED_BACK", "INJECTED:SELLER_PAID"},
		{"5", "ROLLED_BACK", "INJECTED:ITEM_DELIVERED"},
		{"6", "ROLLED_BACK", "INJECTED:COMPLETED"},
	}
	for _, c := range cases {
		t.Run(c.state+c.key, func(t *testing.T) {
			e := newEnv(t, 120, 40)
			l, _ := e.m.panes[0].Selected()
			e.m.c.Actor = otherThan(t, e, l)
			e.key("b")
			e.key(c.key)
			e.mustContain("armed: fails at")
			e.confirm()
			if !strings.Contains(e.status(), "ended "+c.state+" ("+c.code+")") {
				t.Fatalf("status %q", e.status())
			}
			if e.svc.ArmedFailure() != "" {
				t.Fatal("failure left armed")
			}
			// The listing is back and nothing was published.
			if _, err := e.svc.GetListing(l.ID); err != nil {
				t.Fatal(err)
			}
			e.tick()
			if len(e.m.log.all) != 0 {
				t.Fatalf("%d events after a failed purchase", len(e.m.log.all))
			}
			// The transaction's timeline is on the Transactions pane, all states.
			e.key("5")
			e.key("a")
			e.mustContain(c.state)
		})
	}
}

// TestHeldKeyDoesNotConfirm: a held key never confirms; a key after a quiet
// period does.
func TestHeldKeyDoesNotConfirm(t *testing.T) {
	e := newEnv(t, 120, 40)
	l, _ := e.m.panes[0].Selected()
	e.key("x")
	for range 40 { // 3.2 s of auto-repeat every 80 ms
		e.wall.advance(80 * time.Millisecond)
		e.send(tea.KeyPressMsg{Code: 'y', Text: "y", IsRepeat: true})
	}
	if e.m.dialog == nil {
		t.Fatal("a held y confirmed")
	}
	if _, err := e.svc.GetListing(l.ID); err != nil {
		t.Fatal(err)
	}
	e.wall.advance(graceQuiet)
	e.send(tea.KeyPressMsg{Code: 'y', Text: "y", IsRepeat: true}) // still the held key
	if e.m.dialog == nil {
		t.Fatal("an auto-repeat after a pause confirmed")
	}
	e.confirm()
	if _, err := e.svc.GetListing(l.ID); err == nil {
		t.Fatal("a fresh y after a quiet period did not remove")
	}
}

// Found in use: the confirmation kept its size when the grace period
// ended, instead of shrinking under the cursor.
func TestConfirmKeepsItsSize(t *testing.T) {
	e := newEnv(t, 120, 40)
	e.key("x")
	before := e.m.dialog.View(e.m.c, 100, 36)
	e.wall.advance(graceQuiet)
	after := e.m.dialog.View(e.m.c, 100, 36)
	if !strings.Contains(before, "wait…") || strings.Contains(after, "wait…") {
		t.Fatalf("the hint did not change:\n%s\n%s", before, after)
	}
	if wb, wa := width(strings.SplitN(before, "\n", 2)[0]), width(strings.SplitN(after, "\n", 2)[0]); wb != wa {
		t.Fatalf("the box is %d cells wide while waiting, %d after", wb, wa)
	}
}

package tui

import (
	"slices"
	"strings"
	"testing"
)

// TestEmptyMarketAddsPlayers: an empty market says what to do, and A adds a
// player, who can sell at once; bad input changes nothing and says why.
func TestEmptyMarketAddsPlayers(t *testing.T) {
	e := envOn(t, emptyStore(t), 120, 40)
	if e.status() != noPlayersText {
		t.Fatalf("status %q", e.status())
	}
	e.mustContain("acting as —")
	e.mustContain("No active listings.") // not "No listings match": nothing is filtered
	e.key("3")
	e.mustContain("No player yet") // the footer's refusal gave way to the key
	for _, k := range []string{"s", "m"} {
		e.key(k)
		if e.status() != noPlayersText || e.m.dialog != nil {
			t.Fatalf("%s: %q", k, e.status())
		}
	}
	e.key("p")
	e.mustContain("A adds one")
	e.key("esc")

	for _, c := range []struct{ name, balance, want string }{
		{"Al", "1000.00", `a player name has 3 to 16 characters, "Al" has 2 [INVALID_PLAYER]`},
		{"Jan_Kowalski", "lots", `the balance must be a number like 1000.00, not "lots"`},
		{"Jan_Kowalski", "0.001", "[INVALID_PLAYER]"},
	} {
		e.key("A")
		d := e.m.dialog.(*addPlayerDialog)
		e.typeText(c.name)
		e.key("tab")
		for range 8 {
			e.key("backspace")
		}
		e.typeText(c.balance)
		e.key("enter")
		if e.m.dialog != d || !strings.Contains(d.err, c.want) || d.name.Value() != c.name {
			t.Fatalf("%s/%s: dialog %T, error %q, want %q", c.name, c.balance, e.m.dialog, d.err, c.want)
		}
		e.mustContain(c.want)
		if ps, _ := e.svc.Players(); len(ps) != 0 {
			t.Fatalf("%s/%s: a refused player was added: %v", c.name, c.balance, ps)
		}
		e.key("esc")
	}

	e.key("A")
	e.typeText("Jan_Kowalski")
	e.key("tab")
	e.key("tab")
	e.key("space") // admin
	e.key("enter")
	if e.m.dialog != nil {
		t.Fatalf("the dialog stayed: %q", e.m.dialog.(*addPlayerDialog).err)
	}
	want := "added player Jan_Kowalski with market.admin, balance 1 000.00, 5 stacks; acting as Jan_Kowalski (p picks another)"
	if e.status() != want {
		t.Fatalf("status %q, want %q", e.status(), want)
	}
	e.mustContain("acting as Jan_Kowalski")
	if e.m.c.Admin.Name != "Jan_Kowalski" {
		t.Fatalf("admin %q", e.m.c.Admin.Name)
	}
	e.key("A")
	e.typeText("jan_kowalski")
	e.key("enter")
	if d, ok := e.m.dialog.(*addPlayerDialog); !ok || !strings.HasSuffix(d.err, "[PLAYER_EXISTS]") {
		t.Fatalf("a second Jan: %T", e.m.dialog)
	}
	e.key("esc")
	e.key("s")
	e.key("enter")
	if !strings.HasPrefix(e.status(), "listed #") {
		t.Fatalf("the new player cannot sell: %q", e.status())
	}
}

func TestPlayerPickerFoldsDiacritics(t *testing.T) {
	e := newEnv(t, 120, 40)
	e.key("p")
	// Game names are ASCII: "łukasz" typed with its Polish letter finds
	// Lukasz.
	e.typeText("łukasz")
	pp := e.m.dialog.(*playerPicker)
	if len(pp.shown) == 0 || !strings.HasPrefix(pp.shown[0].Name, "Lukasz") {
		t.Fatalf("shown %v", pp.shown)
	}
	e.key("enter")
	if !strings.HasPrefix(e.m.c.Actor.Name, "Lukasz") {
		t.Fatalf("actor %q", e.m.c.Actor.Name)
	}
}

// The add-player dialog proposes a balance: typing replaces it. A name
// longer than the game allows is refused at its 17th character, and the
// field says so.
func TestAddPlayerDialogProposalAndLimit(t *testing.T) {
	e := envOn(t, emptyStore(t), 120, 40)
	e.key("A")
	d := e.m.dialog.(*addPlayerDialog)
	e.typeText("Jan_Kowalski_12345")
	if d.name.Value() != "Jan_Kowalski_123" {
		t.Fatalf("name %q", d.name.Value())
	}
	e.mustContain("⚠ at most 16 characters")
	e.key("backspace")
	if v := e.view(); strings.Contains(v, "at most 16") {
		t.Fatal("the note stayed after an edit")
	}
	e.key("tab")
	e.typeText("250")
	if d.balance.Value() != "250" {
		t.Fatalf("balance %q, want 250 typed over the proposed 1000.00", d.balance.Value())
	}
	e.key("enter")
	if e.status() != "added player Jan_Kowalski_12, balance 250.00, 5 stacks; acting as Jan_Kowalski_12 (p picks another)" {
		t.Fatalf("status %q", e.status())
	}
}

// TestEmptyMarketSaysThereIsNoPlayer: with nobody to act as, the Seller
// pane showed a player "—" with the nil id and a balance of 0.00, and the
// Orders pane "—'s orders"; both say there is no player yet, and how to
// add one, until A adds one.
func TestEmptyMarketSaysThereIsNoPlayer(t *testing.T) {
	e := envOn(t, emptyStore(t), 160, 48)
	for _, c := range []struct{ pane, head, how string }{
		{"3", "No player yet", "A adds one, R starts traffic bots that bring their own"},
		{"7", "No player yet", "  A adds one, R starts traffic bots that bring their own"},
	} {
		pane := c.pane
		e.key(pane)
		lines := strings.Split(e.view(), "\n")
		if !slices.ContainsFunc(lines, func(l string) bool { return strings.TrimRight(l, " ") == c.head }) ||
			!slices.ContainsFunc(lines, func(l string) bool { return strings.TrimRight(l, " ") == c.how }) {
			t.Fatalf("pane %s lacks the lines %q and %q:\n%s", pane, c.head, c.how, e.view())
		}
		for _, bad := range []string{"00000000-0000-0000-0000-000000000000", "balance 0.00", "—'s orders"} {
			if strings.Contains(e.view(), bad) {
				t.Fatalf("pane %s shows %q:\n%s", pane, bad, e.view())
			}
		}
	}
	e.key("A")
	e.typeText("Jan_Kowalski")
	e.key("enter")
	e.mustContain("Jan_Kowalski's orders (0 open, newest closed after)")
	e.key("3")
	e.mustContain("balance 1 000.00")
	if strings.Contains(e.view(), "No player yet") {
		t.Fatalf("the Seller pane still says no player:\n%s", e.view())
	}
}

package tui

import (
	"errors"
	"strings"
	"testing"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
	"github.com/rynek/rynek/seed"
)

// TestRemoveReasons: each removal's footer, its line in the status
// history (L) and the Events pane say the reason the market published. The
// console commits behind its tick, as rynek runs it: the event comes after
// the action has returned, so the footer cannot read it from the log.
func TestRemoveReasons(t *testing.T) {
	for _, c := range []struct {
		key, reason string
		actAs       func(e *testEnv) market.Player // the acting player, for r
	}{
		{key: "x", reason: "removed"},
		{key: "X", reason: "admin-removed"},
		{key: "F", reason: "force-expire"},
		{key: "r", reason: "admin-removed", actAs: func(e *testEnv) market.Player { return e.m.c.Admin }},
	} {
		st := seededStore(t, seed.Options{Players: 40, Listings: 400, Days: 10, Rand: 7, Auctions: -1, Orders: -1})
		e := envWith(t, st, market.Config{ListingCooldown: -1, CommitBehind: true}, 120, 40)
		if c.actAs != nil {
			e.m.c.Actor = c.actAs(e)
		}
		l, _ := e.m.panes[0].Selected()
		e.key(c.key)
		e.confirm()
		want := "→ ListingRemovedEvent reason \"" + c.reason + "\""
		if !strings.HasSuffix(e.status(), want) {
			t.Fatalf("%s: status %q, want it to end %q", c.key, e.status(), want)
		}
		if r := e.svc.Flush(); len(r) != 0 {
			t.Fatalf("%s: refused %+v", c.key, r)
		}
		e.tick()
		if len(e.m.log.all) != 1 {
			t.Fatalf("%d events", len(e.m.log.all))
		}
		re := e.m.log.all[0].(market.ListingRemovedEvent)
		if re.Reason() != c.reason || re.Listing().ID != l.ID {
			t.Fatalf("event %s #%d", re.Reason(), re.Listing().ID)
		}
		e.key("L")
		e.mustContain("#" + itoa(l.ID) + " as ")
		e.mustContain(want)
		e.key("esc")
		e.key("6")
		e.mustContain("reason=" + c.reason)
	}
}

func TestRemoveRefusalShowsExactError(t *testing.T) {
	e := newEnv(t, 120, 40)
	l, _ := e.m.panes[0].Selected()
	must(t, e.svc.RemoveListing(l.ID, market.Player{ID: l.Seller})) // gone behind the console's back
	e.key("x")                                                      // refused at once, with the market's text and code: no confirmation of a lost cause
	if e.status() != "listing #"+itoa(l.ID)+" does not exist [UNKNOWN_LISTING]" || !e.m.status.err || e.m.dialog != nil {
		t.Fatalf("status %q, dialog %T", e.status(), e.m.dialog)
	}
}

// TestActingPlayerReachesNotOwnerAndForbidden: remove and force-expire as
// the acting player reach NOT_OWNER and FORBIDDEN, with the code shown.
func TestActingPlayerReachesNotOwnerAndForbidden(t *testing.T) {
	e := newEnv(t, 120, 40)
	l, _ := e.m.panes[0].Selected()
	ps, _ := e.svc.Players()
	for _, p := range ps {
		if p.ID != l.Seller && !p.HasPermission(market.PermAdmin) {
			e.m.c.Actor = p
		}
	}
	e.key("r")
	e.confirm()
	if !strings.HasSuffix(e.status(), "[NOT_OWNER]") {
		t.Fatalf("r: %q", e.status())
	}
	e.key("E")
	e.confirm()
	if !strings.HasSuffix(e.status(), "[FORBIDDEN]") {
		t.Fatalf("E: %q", e.status())
	}
	e.key("L")
	e.mustContain("NOT_OWNER")
}

// An admin action in a market without an admin says how to get one.
func TestAdminActionWithoutAnAdmin(t *testing.T) {
	e := envOn(t, emptyStore(t), 120, 40)
	e.key("R") // the bots bring players, none of them an admin
	e.key("R")
	e.key("1")
	e.key("s") // as Bot_1, so that there is a listing whatever the bots did
	e.key("enter")
	if _, ok := e.m.panes[0].Selected(); !ok {
		t.Fatalf("nothing listed: %q", e.status())
	}
	for _, k := range []string{"X", "F"} {
		e.key(k)
		if e.m.dialog != nil || e.status() != errNoAdmin.Error() {
			t.Fatalf("%s: dialog %T, status %q", k, e.m.dialog, e.status())
		}
	}
}

func TestBackupKeyWritesACopyBesideTheMarket(t *testing.T) {
	st := seededStore(t, seed.Options{Players: 10, Listings: 40, Days: 1, Rand: 4})
	e := envOn(t, st, 120, 40)
	e.m.Update(keyMsg("B"))
	if e.status() != "this console was started without a store to back up" {
		t.Fatalf("without a store: %q", e.status())
	}
	e.m.backup, e.m.backupOf = st.Backup, st.Path()
	_, cmd := e.m.Update(keyMsg("B"))
	if !strings.HasPrefix(e.status(), "backing up to ") || cmd == nil {
		t.Fatalf("status %q", e.status())
	}
	e.m.Update(cmd()) // the copy is made off the main thread; its result comes back
	dest := strings.Fields(e.status())[3]
	if !strings.HasPrefix(e.status(), "backed up to ") || !strings.HasPrefix(dest, strings.TrimSuffix(st.Path(), ".db")+"-backup-") {
		t.Fatalf("status %q", e.status())
	}
	copied, err := sqlite.Open(dest, sqlite.Options{})
	must(t, err)
	svc := market.New(copied, market.Config{Clock: market.NewManualClock(fixedNow)})
	must(t, svc.BindMainThread())
	must(t, svc.Enable())
	defer svc.Close()
	if n, _ := svc.GetActiveListingsCount(); n != 40 {
		t.Fatalf("the copy has %d listings", n)
	}
}

// TestReloadRulesKey: ctrl+r reloads the rules file through the console's
// hook, showing what it said; without a hook it says there is none.
func TestReloadRulesKey(t *testing.T) {
	e := newEnv(t, 120, 40)
	e.m.reload = nil
	e.key("ctrl+r")
	if e.status() != "this console has no rules file to reload" {
		t.Fatalf("status %q", e.status())
	}
	calls := 0
	e.m.reload = func() (string, error) {
		calls++
		if calls == 1 {
			return "", errors.New("rynek.yml:2:3: unknown key fees.sale-percnt; the rules stay as they are")
		}
		return "rules reloaded from rynek.yml", nil
	}
	e.key("ctrl+r")
	if !strings.HasPrefix(e.status(), "rynek.yml:2:3: unknown key fees.sale-percnt") {
		t.Fatalf("status %q", e.status())
	}
	e.key("ctrl+r")
	if e.status() != "rules reloaded from rynek.yml" {
		t.Fatalf("status %q", e.status())
	}
}

// TestBuyDialogWritesAMinus: a balance short of the price leaves a negative
// "after", written with the console's minus sign as the in/out columns
// write a purchase, not an ASCII "-314.08".
func TestBuyDialogWritesAMinus(t *testing.T) {
	e := envWithSeller(t, 160, 48, market.ItemStack{Material: "DIAMOND", Amount: 8})
	e.key("s")
	e.typeText("324.08")
	e.key("enter")
	poor, err := e.svc.AddPlayer(market.NewPlayer{Name: "Biedak", Balance: 10})
	must(t, err)
	e.m.c.Actor = poor
	e.key("b")
	e.mustContain("balance 10.00 → after −314.08")
	if strings.Contains(e.view(), "-314.08") {
		t.Fatalf("an ASCII minus:\n%s", e.view())
	}
}

// TestClaimCountsStacks: m claims mailbox entries, each a stack of any
// amount: 3 stacks of 64 are "3 stacks", not "3 mailbox items".
func TestClaimCountsStacks(t *testing.T) {
	full := make([]market.ItemStack, market.InventorySize)
	for i := range full {
		full[i] = market.ItemStack{Material: "COBBLESTONE", Amount: 64}
	}
	e := envWithSeller(t, 160, 48, full...)
	p := e.m.c.Actor
	for range 3 {
		_, mailed, err := e.svc.GiveItem(p.ID, market.ItemStack{Material: "DIAMOND", Amount: 64})
		must(t, err)
		if !mailed {
			t.Fatal("a gift to a full inventory was not mailed")
		}
	}
	st, err := e.svc.GetPlayer(p.ID)
	must(t, err)
	for _, it := range st.Inventory[:3] {
		_, err := e.svc.SellItem(p, *it, 10)
		must(t, err)
	}
	e.key("m")
	if want := "Sprzedawca claimed 3 stacks from the mailbox"; e.status() != want {
		t.Fatalf("status %q, want %q", e.status(), want)
	}
}

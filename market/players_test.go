package market_test

import (
	"errors"
	"testing"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
)

func TestAddPlayer(t *testing.T) {
	w := newWorld(t)
	version := w.svc.Version()
	p, err := w.svc.AddPlayer(market.NewPlayer{Name: "Nowy_Gracz1", Balance: 250.5, Permissions: []string{"vip"},
		Items: []market.ItemStack{{Material: "DIAMOND", Amount: 3}, {}, {Material: "nexo:ruby", Amount: 2}}})
	must(t, err)
	if p.ID == uuid.Nil || p.Name != "Nowy_Gracz1" || !p.HasPermission("vip") {
		t.Fatalf("player %+v", p)
	}
	check := func(when string) {
		t.Helper()
		st, err := w.svc.GetPlayer(p.ID)
		must(t, err)
		if st.Balance != 250.5 || st.Inventory[0] == nil || st.Inventory[0].Amount != 3 || st.Inventory[0].ID == uuid.Nil ||
			st.Inventory[1] != nil || st.Inventory[2] == nil || st.Inventory[2].Material != "nexo:ruby" {
			t.Fatalf("%s: state %+v", when, st)
		}
		found, err := w.svc.PlayerByName("nowy_gracz1")
		must(t, err)
		if found.ID != p.ID {
			t.Fatalf("%s: found %+v", when, found)
		}
	}
	check("live")
	if w.svc.Version() != version+1 {
		t.Fatalf("version %d after one change from %d", w.svc.Version(), version)
	}
	var kinds []market.EventKind
	_, err = w.store.ReadEvents(version, 10, func(r market.EventRow) error { kinds = append(kinds, r.Kind); return nil })
	must(t, err)
	if len(kinds) != 1 || kinds[0] != market.KindPlayerAdded {
		t.Fatalf("log after the join: %v", kinds)
	}
	if len(w.events) != 0 {
		t.Fatalf("a join published %d contract events", len(w.events))
	}
	// The new player trades like anyone else.
	l := w.sell(w.alice, 0, 10)
	if _, err := w.svc.Buy(p, l.ID); err != nil {
		t.Fatal(err)
	}
	w.reopen()
	st, err := w.svc.GetPlayer(p.ID)
	must(t, err)
	if st.Balance != 240.5 {
		t.Fatalf("balance after a purchase and a restart: %v", st.Balance)
	}
	if a := mustAudit(t, w.svc); len(a.Problems) > 0 {
		t.Fatal(a.Problems)
	}
}

func TestAddPlayerRefusals(t *testing.T) {
	w := newWorld(t)
	tooMany := make([]market.ItemStack, market.InventorySize+1)
	for _, c := range []struct {
		name string
		in   market.NewPlayer
		code market.Code
		msg  string
	}{
		{"short name", market.NewPlayer{Name: "Al"}, market.CodeInvalidPlayer, `a player name has 3 to 16 characters, "Al" has 2`},
		{"long name", market.NewPlayer{Name: "Abcdefghijklmnopq"}, market.CodeInvalidPlayer, `a player name has 3 to 16 characters, "Abcdefghijklmnopq" has 17`},
		{"space", market.NewPlayer{Name: "Jan Kowal"}, market.CodeInvalidPlayer, `a player name has only letters a–z, digits and underscores; "Jan Kowal" has ' '`},
		{"diacritic", market.NewPlayer{Name: "Łukasz"}, market.CodeInvalidPlayer, `a player name has only letters a–z, digits and underscores; "Łukasz" has 'Ł'`},
		{"escape", market.NewPlayer{Name: "Ev\x1b[2Jil"}, market.CodeInvalidPlayer, `a player name has only letters a–z, digits and underscores; "Ev\x1b[2Jil" has '\x1b'`},
		{"name taken in another case", market.NewPlayer{Name: "ALICE"}, market.CodePlayerExists, "a player called Alice exists"},
		{"id taken", market.NewPlayer{ID: uid(2), Name: "Robert"}, market.CodePlayerExists, "a player with id " + uid(2).String() + " exists"},
		{"permission with a comma", market.NewPlayer{Name: "Carol", Permissions: []string{"a,b"}}, market.CodeInvalidPlayer, `permission "a,b" must be one word without commas`},
		{"balance of a tenth of a cent", market.NewPlayer{Name: "Carol", Balance: 0.001}, market.CodeInvalidPlayer, "starting balance: price 0.001 has more than 2 decimals"},
		{"negative balance", market.NewPlayer{Name: "Carol", Balance: -5}, market.CodeInvalidPlayer, "starting balance: price must be greater than 0, got -5"},
		{"too many items", market.NewPlayer{Name: "Carol", Items: tooMany}, market.CodeInvalidPlayer, "37 items do not fit in 36 inventory slots"},
		{"bad item", market.NewPlayer{Name: "Carol", Items: []market.ItemStack{{Material: "DIAMOND", Amount: 65}}}, market.CodeInvalidItem, "item 1: amount 65 of DIAMOND is outside 1..64"},
	} {
		// No t.Run: the service's main thread is this goroutine.
		before := w.svc.Version()
		_, err := w.svc.AddPlayer(c.in)
		var me *market.Error
		if !errors.As(err, &me) || me.Code != c.code || me.Msg != c.msg {
			t.Errorf("%s: got %v, want %s %q", c.name, err, c.code, c.msg)
		}
		if w.svc.Version() != before {
			t.Errorf("%s: a refused join changed the market", c.name)
		}
		if players, _ := w.svc.Players(); len(players) != 3 {
			t.Errorf("%s: %d players after a refused join", c.name, len(players))
		}
	}
}

func TestAddPlayerGuards(t *testing.T) {
	w := newWorld(t)
	w.svc.Disable()
	if _, err := w.svc.AddPlayer(market.NewPlayer{Name: "Carol"}); err == nil || err.Error() != "Rynek API nie jest gotowe" {
		t.Fatalf("disabled: %v", err)
	}
	must(t, w.svc.Enable())
	done := make(chan error)
	go func() { _, err := w.svc.AddPlayer(market.NewPlayer{Name: "Carol"}); done <- err }()
	if err := <-done; !errors.Is(err, market.ErrNotMainThread) {
		t.Fatalf("from another goroutine: %v", err)
	}
}

// TestJoin: the game's join adds a new player, renames or re-ranks a known
// one (and finds their listings by the new name only), and writes nothing
// when nothing changed.
func TestJoin(t *testing.T) {
	w := newWorld(t)
	newcomer := uuid.MustParse("0b6c3f47-5d1e-4c1a-9a43-2a0e7d7e1f11")
	p, isNew, err := w.svc.Join(newcomer, "Zosia_K", []string{"market.use"})
	must(t, err)
	if !isNew || p.ID != newcomer || p.Name != "Zosia_K" || !p.HasPermission("market.use") {
		t.Fatalf("joined %+v (new %v)", p, isNew)
	}
	st, err := w.svc.GetPlayer(newcomer)
	must(t, err)
	if st.Balance != 0 || st.Inventory != [market.InventorySize]*market.ItemStack{} {
		t.Fatalf("a newcomer brings nothing: %+v", st)
	}

	l := w.sell(w.alice, 0, 10)
	version := w.svc.Version()
	if _, isNew, err := w.svc.Join(w.alice.ID, "Alice", nil); err != nil || isNew || w.svc.Version() != version {
		t.Fatalf("an unchanged join: new %v, %v, version %d → %d", isNew, err, version, w.svc.Version())
	}
	renamed, isNew, err := w.svc.Join(w.alice.ID, "Alicja", []string{"vip"})
	must(t, err)
	if isNew || renamed.Name != "Alicja" || !renamed.HasPermission("vip") {
		t.Fatalf("renamed %+v", renamed)
	}
	found := func(text string) int {
		t.Helper()
		page, err := w.svc.Query(market.Query{Text: text})
		must(t, err)
		return len(page.Listings)
	}
	check := func(when string) {
		t.Helper()
		if found("alicja") != 1 || found("alice") != 0 {
			t.Fatalf("%s: %d listings found by the new name, %d by the old", when, found("alicja"), found("alice"))
		}
		got, err := w.svc.GetListing(l.ID)
		must(t, err)
		if got.SellerName != "Alicja" {
			t.Fatalf("%s: the listing's seller is %q", when, got.SellerName)
		}
		if p, err := w.svc.PlayerByName("alicja"); err != nil || p.ID != w.alice.ID || !p.HasPermission("vip") {
			t.Fatalf("%s: by name %+v, %v", when, p, err)
		}
	}
	check("live")
	w.reopen()
	check("after a restart")

	for _, c := range []struct {
		name  string
		id    uuid.UUID
		pname string
		perms []string
		code  market.Code
		msg   string
	}{
		{"nil id", uuid.Nil, "Nobody", nil, market.CodeInvalidPlayer, "a joining player needs their game id, not the nil UUID"},
		{"another's name", w.alice.ID, "BOB", nil, market.CodePlayerExists, "the name Bob belongs to player " + w.bob.ID.String() + "; they join under their new name first"},
		{"bad name", w.alice.ID, "A l", nil, market.CodeInvalidPlayer, `a player name has only letters a–z, digits and underscores; "A l" has ' '`},
		{"bad permission", w.alice.ID, "Alicja", []string{"a b"}, market.CodeInvalidPlayer, `permission "a b" must be one word without commas`},
		{"new player, taken name", uid(77), "alicja", nil, market.CodePlayerExists, "a player called Alicja exists"},
	} {
		version := w.svc.Version()
		_, _, err := w.svc.Join(c.id, c.pname, c.perms)
		var me *market.Error
		if !errors.As(err, &me) || me.Code != c.code || me.Msg != c.msg {
			t.Errorf("%s: got %v, want %s %q", c.name, err, c.code, c.msg)
		}
		if w.svc.Version() != version {
			t.Errorf("%s: a refused join changed the log", c.name)
		}
	}
}

package tui

import (
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rynek/rynek/internal/traffic"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/seed"
)

func TestBotsGenerateEventsWithoutGaps(t *testing.T) {
	e := newEnv(t, 120, 40)
	e.key("R")
	for range 5 {
		e.key("+")
	}
	for range 10 {
		e.tick()
	}
	if e.m.bots.total.OK == 0 || len(e.m.log.all) == 0 || e.m.log.gaps != 0 {
		t.Fatalf("bots ok %d bad %d, events %d, gaps %d", e.m.bots.total.OK, e.m.bots.total.Refused, len(e.m.log.all), e.m.log.gaps)
	}
	e.key("R")
	n := len(e.m.log.all)
	e.tick()
	if len(e.m.log.all) != n {
		t.Fatal("bots still running after stop")
	}
}

// TestBotsRecruitPlayersInAnEmptyMarket: bots started on an empty market
// bring their own players and trade.
func TestBotsRecruitPlayersInAnEmptyMarket(t *testing.T) {
	e := envOn(t, emptyStore(t), 120, 40)
	e.key("R")
	ps, _ := e.svc.Players()
	if len(ps) != botRecruits || !e.m.bots.on {
		t.Fatalf("%d players, bots on %v: %q", len(ps), e.m.bots.on, e.status())
	}
	want := "the market had fewer than 2 players, so the bots added 6 (Bot_1…Bot_6, 5 000.00 and a starter kit each); acting as Bot_1; traffic bots started at 20 actions/s as 6 players (R stops them; +/- pace)"
	if e.status() != want {
		t.Fatalf("status %q, want %q", e.status(), want)
	}
	for range 30 {
		e.tick()
	}
	// The bots' choices are random (seeded by the clock): what they listed
	// may all be bought or taken down again, so the trades are what counts.
	n, _ := e.svc.GetActiveListingsCount()
	done, _ := e.svc.GetCompletedTransactions()
	if n+len(done) == 0 || e.m.bots.total.OK == 0 {
		t.Fatalf("after 30 ticks: %d listings, %d purchases, %d ok, %d refused (%v)", n, len(done), e.m.bots.total.OK, e.m.bots.total.Refused, e.m.bots.total.LastErr)
	}
	e.mustContain("QA bots 20/s ok")
	e.key("R")
	if !strings.HasPrefix(e.status(), "traffic bots stopped after ") {
		t.Fatalf("R again: %q", e.status())
	}
	e.key("R") // the market has players now: nobody new
	if ps, _ := e.svc.Players(); len(ps) != botRecruits {
		t.Fatalf("a second start added players: %d", len(ps))
	}
}

// Found in use: in a market of a few listings the bots' purchases looked
// for one of the 200 cheapest at random and nearly all came back "no
// listing to buy", so the refused count said nothing. They buy among what
// is listed, and a turn with nothing worth buying waits: it is no refusal.
func TestBotsBuyWhatIsListed(t *testing.T) {
	e := envOn(t, seededStore(t, seed.Options{Players: 8, Listings: 5, Days: 1, Rand: 2}), 120, 40)
	b := newBots()
	b.players, _ = e.svc.Players()
	r := b.gen.Step(e.svc, b.players, 300, time.Second)
	if r.Actions[traffic.Bought] == 0 || r.Refused != 0 {
		t.Fatalf("300 turns among a few listings: %s; refused %d (%s)", r.ActionText(), r.Refused, r.RefusalText())
	}
}

// TestBotsStopNamesTheRefusals: stopping the bots says what was refused,
// by code, and the last refusal's text.
func TestBotsStopNamesTheRefusals(t *testing.T) {
	e := newEnv(t, 160, 48)
	e.key("R")
	if !e.m.bots.on {
		t.Fatalf("R: %q", e.status())
	}
	last := &market.Error{Code: market.CodeCooldown, Msg: "Alex must wait 3s before listing again"}
	e.m.bots.total = traffic.Result{OK: 5, Refused: 3, LastErr: last,
		Refusals: map[market.Code]int{market.CodeCooldown: 2, market.CodePurchaseCap: 1}}
	e.key("R")
	want := "traffic bots stopped after 5 ok, 3 refused (R starts them again); refused COOLDOWN 2, PURCHASE_CAP 1, the last: Alex must wait 3s before listing again"
	if e.status() != want {
		t.Fatalf("status %q\nwant   %q", e.status(), want)
	}
}

// TestBotsLeaveTheActingPlayerAlone: the bots act as every player but the
// one the console acts as, so a demo's own sell is never refused with a
// cooldown the bots started, nor its inventory changed under it (others
// may buy the player's listings, as in any market).
func TestBotsLeaveTheActingPlayerAlone(t *testing.T) {
	e := newEnv(t, 120, 40)
	must(t, e.svc.SetRules(market.Config{})) // the 5 s cooldown of a real market
	actor := e.m.c.Actor
	before, err := e.svc.GetPlayer(actor.ID)
	must(t, err)
	bought := func() int {
		page, err := e.svc.Transactions(market.TxQuery{Player: actor.ID, AllStates: true, Limit: 10_000})
		must(t, err)
		n := 0
		for _, tx := range page.Transactions {
			if tx.Buyer == actor.ID {
				n++
			}
		}
		return n
	}
	purchases := bought()
	e.key("R")
	for range 4 {
		e.key("+") // 320 a second
	}
	for range 30 {
		e.tick()
	}
	if e.m.bots.total.OK == 0 {
		t.Fatalf("the bots did nothing: %s", e.m.bots.total.ActionText())
	}
	after, err := e.svc.GetPlayer(actor.ID)
	must(t, err)
	room, err := e.svc.ListingRoom(actor.ID)
	must(t, err)
	if !reflect.DeepEqual(after.Inventory, before.Inventory) || !reflect.DeepEqual(after.Mailbox, before.Mailbox) ||
		bought() != purchases || !room.NextListing.IsZero() {
		t.Fatalf("the bots acted as %s: %d purchases, then %d; next listing at %v", actor.Name, purchases, bought(), room.NextListing)
	}
}

// TestATicksChangesGoInUnderOneLock: the console's tick holds the market's
// lock through its changes (Service.Hold), so a reader running beside it
// (the API) sees the market as a tick leaves it, never between two of the
// bots' changes, and the main thread waits for the readers once a tick.
func TestATicksChangesGoInUnderOneLock(t *testing.T) {
	e := newEnv(t, 120, 40)
	e.key("R")
	for range 4 {
		e.key("+") // 320 actions a second: several changes a tick
	}
	var seen sync.Map
	stop := make(chan struct{})
	read := make(chan struct{})
	go func() {
		defer close(read)
		for {
			select {
			case <-stop:
				return
			default:
			}
			seen.Store(e.svc.Version(), true)
		}
	}()
	ends := map[uint64]bool{e.svc.Version(): true}
	several := 0
	for range 20 {
		before := e.svc.Version()
		e.tick()
		after := e.svc.Version()
		ends[after] = true
		if after > before+1 {
			several++
		}
	}
	close(stop)
	<-read
	if several == 0 {
		t.Fatal("no tick made more than one change: the test saw nothing")
	}
	var between []uint64
	seen.Range(func(v, _ any) bool {
		if !ends[v.(uint64)] {
			between = append(between, v.(uint64))
		}
		return true
	})
	if len(between) > 0 {
		slices.Sort(between)
		t.Fatalf("a reader saw the market between a tick's changes at %d versions, the first %v (%d ticks with several changes)",
			len(between), between[:min(len(between), 8)], several)
	}
}

package market_test

import (
	"errors"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
)

func TestBulkLoadRefusesAMarketWithData(t *testing.T) {
	w := newWorld(t)
	before := w.audit()
	_, err := market.NewBulk(w.store)
	if !errors.Is(err, market.ErrStoreNotEmpty) {
		t.Fatalf("NewBulk on a market with players: %v", err)
	}
	errText(t, err, "the market already has players; a bulk load goes into an empty market (merge explicitly to add to one)")
	w.reopen()
	if after := w.audit(); after.Money != before.Money || after.Items != before.Items {
		t.Fatalf("a refused bulk load changed the market: %+v -> %+v", before, after)
	}
}

func TestMergeAddsAndNeverOverwrites(t *testing.T) {
	w := newWorld(t)
	l := w.sell(w.alice, 0, 10)
	tx, err := w.svc.Buy(w.bob, l.ID)
	must(t, err)
	aliceBefore, err := w.svc.GetPlayer(w.alice.ID)
	must(t, err)
	before := w.audit()
	volume, err := w.svc.GetMarketVolume()
	must(t, err)
	must(t, w.svc.Close())

	st := w.openStore()
	m, err := market.NewMerge(st)
	must(t, err)
	carol := market.Player{ID: uuid.New(), Name: "Carol"}
	// Alice comes again with another balance and inventory: both ignored.
	must(t, m.AddPlayer(market.Player{ID: w.alice.ID, Name: "Alice"}, 1))
	err = m.SetSlot(w.alice.ID, 5, market.ItemStack{Material: "DIAMOND", Amount: 1})
	errText(t, err, "bulk merge: player "+w.alice.ID.String()+" is already in the market; a merge never overwrites their inventory")
	must(t, m.AddPlayer(carol, 500_00))
	must(t, m.SetSlot(carol.ID, 0, market.ItemStack{Material: "OAK_LOG", Amount: 8}))
	id, err := m.AddListing(carol.ID, market.ItemStack{Material: "BREAD", Amount: 3}, 250, t0, t0.Add(24*time.Hour))
	must(t, err)
	// The purchase made in the market, merged again, is skipped.
	_, err = m.AddTransaction(market.HistoricSale{ID: uuid.MustParse(tx.ID), Buyer: w.bob.ID, Seller: w.alice.ID,
		Item: market.ItemStack{Material: "DIAMOND", Amount: 64}, Price: 1000, Fee: 50, State: market.StateCompleted, At: t0})
	must(t, err)
	_, err = m.AddTransaction(market.HistoricSale{Buyer: carol.ID, Seller: w.bob.ID,
		Item: market.ItemStack{Material: "DIAMOND", Amount: 2}, Price: 700, Fee: 35, State: market.StateCompleted, At: t0})
	must(t, err)
	m.Fees(35)
	must(t, m.Finish())
	must(t, st.Close())
	if got, want := m.Summary(), (market.BulkSummary{Players: 1, Listings: 1, Transactions: 1, SkippedPlayers: 1, SkippedTransactions: 1}); got != want {
		t.Fatalf("summary %+v, want %+v", got, want)
	}
	if id <= l.ID {
		t.Fatalf("the merged listing got id %d, not after the market's %d", id, l.ID)
	}

	w.start()
	alice, err := w.svc.GetPlayer(w.alice.ID)
	must(t, err)
	if alice.Balance != aliceBefore.Balance || !reflect.DeepEqual(alice.Inventory, aliceBefore.Inventory) {
		t.Fatalf("the merge overwrote Alice: balance %v -> %v", aliceBefore.Balance, alice.Balance)
	}
	after := w.audit()
	if after.Money != before.Money+500_00+35 {
		t.Fatalf("money %d, want %d + Carol's 500.00 + the merged fee", after.Money, before.Money)
	}
	if after.Items != before.Items+8+3 {
		t.Fatalf("items %d, want %d + 11", after.Items, before.Items)
	}
	if v, _ := w.svc.GetMarketVolume(); v != volume+7 {
		t.Fatalf("volume %v, want %v + 7.00", v, volume)
	}
	must(t, w.svc.WaitHistory())
	done, _ := w.svc.GetCompletedTransactions()
	if len(done) != 2 {
		t.Fatalf("%d completed transactions, want the market's one and the merged one", len(done))
	}
}

// An importer's load: listings keep their ids, mail is added, and a merge of
// the same data finds every stack and mail id there and adds nothing.
func TestBulkKeepsIDsAndMergesTheSameStacksOnce(t *testing.T) {
	st := testStore(t)()
	seller := market.Player{ID: uid(1), Name: "Grzybek"}
	orig := market.ItemOriginal{Format: market.OriginalBukkitYAML, Data: "id: minecraft:stone\ncount: 3\n"}
	load := func(k *market.Bulk) {
		must(t, k.AddPlayer(seller, 0))
		k.SetNextListingID(40)
		added, err := k.AddListingKeepingID(market.BulkListing{ID: 7, Seller: seller.ID, Price: 100, Created: t0, Expires: t0.Add(time.Hour),
			Item: market.ItemStack{ID: uid(10), Material: "STONE", Amount: 3, Original: orig}})
		must(t, err)
		if !added && k.Summary().SkippedListings != 1 {
			t.Fatalf("listing neither added nor skipped: %+v", k.Summary())
		}
		_, err = k.AddMail(market.BulkMail{Owner: seller.ID, ID: uid(20), Item: market.ItemStack{ID: uid(11), Material: "DIRT", Amount: 1},
			Reason: "expired", Created: t0, PreviousPrice: 250})
		must(t, err)
	}
	k, err := market.NewBulk(st)
	must(t, err)
	load(k)
	_, err = k.AddListingKeepingID(market.BulkListing{ID: 7, Seller: seller.ID, Price: 1, Created: t0, Expires: t0.Add(time.Hour),
		Item: market.ItemStack{ID: uid(12), Material: "STONE", Amount: 1}})
	if !errors.Is(err, market.ErrListingIDTaken) {
		t.Fatalf("a kept id given twice: %v", err)
	}
	_, err = k.AddMail(market.BulkMail{Owner: seller.ID, Item: market.ItemStack{ID: uid(10), Material: "STONE", Amount: 3}, Reason: "expired", Created: t0})
	errText(t, err, "bulk: item stack "+uid(10).String()+" added twice")
	id, err := k.AddListing(seller.ID, market.ItemStack{Material: "STONE", Amount: 1}, 100, t0, t0.Add(time.Hour))
	must(t, err)
	if id != 40 {
		t.Fatalf("a new id %d, want the source's next id 40", id)
	}
	must(t, k.Finish())
	if got, want := k.Summary(), (market.BulkSummary{Players: 1, Listings: 2, Mail: 1}); got != want {
		t.Fatalf("summary %+v, want %+v", got, want)
	}
	before, err := market.ReadStore(st)
	must(t, err)
	if l := before.Listings[0]; l.ID != 7 || l.Item.Original != orig {
		t.Fatalf("listing %+v: the id or the original is lost", l)
	}
	if m := before.Mail[0]; m.ID != uid(20) || m.Owner != seller.ID || m.PreviousPrice != 2.5 || m.Reason != "expired" {
		t.Fatalf("mail %+v", m)
	}

	m, err := market.NewMerge(st)
	must(t, err)
	load(m)
	must(t, m.Finish())
	if got, want := m.Summary(), (market.BulkSummary{SkippedPlayers: 1, SkippedListings: 1, SkippedMail: 1}); got != want {
		t.Fatalf("second merge: summary %+v, want %+v", got, want)
	}
	after, err := market.ReadStore(st)
	must(t, err)
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("the second merge changed the market:\n%+v\n%+v", before, after)
	}
}

func TestRoundToCentsAsTheOriginalEconomy(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want market.Money
	}{{12.5, 1250}, {19.99, 1999}, {99.999, 10000}, {1500.005, 150001}, {0.004, 0}, {0.005, 1}, {1.5e7, 1_500_000_000}} {
		got, err := market.RoundToCents(c.in)
		if err != nil || got != c.want {
			t.Errorf("RoundToCents(%v) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), 1e14} {
		if _, err := market.RoundToCents(bad); err == nil {
			t.Errorf("RoundToCents(%v) accepted", bad)
		}
	}
}

// A load names a player as it reads them and keeps the newest name; a
// merge leaves the names of the players the market has.
func TestBulkRenamesThePlayersItAdds(t *testing.T) {
	w := newWorld(t)
	must(t, w.svc.Close())
	st := w.openStore()
	m, err := market.NewMerge(st)
	must(t, err)
	carol := market.Player{ID: uuid.New(), Name: "Nieznany"}
	must(t, m.AddPlayer(carol, 0))
	must(t, m.RenamePlayer(carol.ID, "Carol"))
	must(t, m.RenamePlayer(w.alice.ID, "Ala"))
	errText(t, m.RenamePlayer(uuid.Nil, "Nobody"), "bulk: unknown player 00000000-0000-0000-0000-000000000000")
	errText(t, m.RenamePlayer(carol.ID, ""), "bulk: player "+carol.ID.String()+" needs a name")
	must(t, m.Finish())
	c, err := market.ReadStore(st)
	must(t, err)
	names := map[uuid.UUID]string{}
	for _, p := range c.Players {
		names[p.ID] = p.Name
	}
	if names[carol.ID] != "Carol" || names[w.alice.ID] != "Alice" {
		t.Fatalf("names after the merge: Carol %q, Alice %q", names[carol.ID], names[w.alice.ID])
	}
}

// loadListings adds a seller and n listings to k: more than a chunk (50,000
// rows) writes chunks into the load's transaction before Finish.
func loadListings(t *testing.T, k *market.Bulk, n int) {
	t.Helper()
	seller := market.Player{ID: uid(90), Name: "Hurtownik"}
	must(t, k.AddPlayer(seller, 100_00))
	for i := range n {
		if _, err := k.AddListing(seller.ID, market.ItemStack{Material: "COBBLESTONE", Amount: 64}, market.Money(100+i), t0, t0.Add(time.Hour)); err != nil {
			t.Fatalf("listing %d: %v", i, err)
		}
	}
}

// A load that is abandoned after its first chunks, or whose store is
// closed under it, leaves nothing behind; while it is open, the store takes
// no other write.
func TestAnUnfinishedLoadLeavesNothing(t *testing.T) {
	open := testStore(t)
	st := open()
	k := newBulk(t, st)
	loadListings(t, k, 60_000)
	if err := st.Commit(&market.Batch{}); !errors.Is(err, market.ErrBulkOpen) {
		t.Fatalf("a commit during a load: %v", err)
	}
	must(t, k.Abort())
	c, err := market.ReadStore(st)
	must(t, err)
	if len(c.Players)+len(c.Listings) != 0 {
		t.Fatalf("an aborted load left %d players and %d listings", len(c.Players), len(c.Listings))
	}
	if err := k.Finish(); err == nil {
		t.Fatal("an aborted load finished")
	}

	k = newBulk(t, st) // the market is empty: a new load is taken
	loadListings(t, k, 60_000)
	must(t, st.Close()) // a load never finished
	c, err = market.ReadStore(open())
	must(t, err)
	if len(c.Players)+len(c.Listings) != 0 {
		t.Fatalf("a load cut off by Close left %d players and %d listings", len(c.Players), len(c.Listings))
	}
}

// failingLoad is a store whose data load fails its second chunk, as a full
// disk would.
type failingLoad struct {
	market.Store
	writes int
}

func (f *failingLoad) BeginBulk() (market.BulkTx, error) {
	tx, err := f.Store.BeginBulk()
	return &failingChunk{BulkTx: tx, f: f}, err
}

type failingChunk struct {
	market.BulkTx
	f *failingLoad
}

func (c *failingChunk) Write(b *market.Batch) error {
	if c.f.writes++; c.f.writes == 2 {
		c.BulkTx.Rollback() // as a store does when a write fails
		return errors.New("database or disk is full")
	}
	return c.BulkTx.Write(b)
}

// A merge whose store fails half-way leaves the market as it was, says so
// (Err) and at every later call, and never opens a second transaction for
// the rest.
func TestAFailedMergeLeavesTheMarketAsItWas(t *testing.T) {
	w := newWorld(t)
	w.sell(w.alice, 0, 10)
	must(t, w.svc.Close())
	st := w.openStore()
	before, err := market.ReadStore(st)
	must(t, err)
	f := &failingLoad{Store: st}
	k, err := market.NewMerge(f)
	must(t, err)
	seller := market.Player{ID: uid(90), Name: "Hurtownik"}
	must(t, k.AddPlayer(seller, 100_00))
	var failed error
	for i := 0; i < 120_000 && failed == nil; i++ {
		_, failed = k.AddListing(seller.ID, market.ItemStack{Material: "COBBLESTONE", Amount: 64}, 100, t0, t0.Add(time.Hour))
	}
	errText(t, failed, "bulk load: database or disk is full")
	errText(t, k.Err(), "bulk load: database or disk is full")
	// Every later row is refused at once, not held for a chunk that will
	// never be written.
	_, err = k.AddListing(seller.ID, market.ItemStack{Material: "COBBLESTONE", Amount: 64}, 100, t0, t0.Add(time.Hour))
	errText(t, err, "bulk load: database or disk is full")
	errText(t, k.Finish(), "bulk load: database or disk is full")
	if f.writes != 2 {
		t.Fatalf("%d chunk writes; the load must stop at the failed one", f.writes)
	}
	after, err := market.ReadStore(st)
	must(t, err)
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("a failed merge changed the market: %d -> %d listings", len(before.Listings), len(after.Listings))
	}
}

// A historic sale the load refuses changes nothing of the load: not the
// listing ids it hands out next, with or without a listing id of its own.
func TestARefusedHistoricSaleTakesNoListingID(t *testing.T) {
	st := testStore(t)()
	k := newBulk(t, st)
	seller, buyer := market.Player{ID: uid(90), Name: "Hurtownik"}, market.Player{ID: uid(91), Name: "Klient"}
	must(t, k.AddPlayer(seller, 0))
	must(t, k.AddPlayer(buyer, 0))
	for _, listing := range []int{0, 500} {
		_, err := k.AddTransaction(market.HistoricSale{Buyer: buyer.ID, Seller: seller.ID, Item: market.ItemStack{Material: "DIAMOND", Amount: 1},
			Price: 10_00, State: market.StateCompleted, At: t0, ListingID: listing, Rating: 6})
		errText(t, err, "bulk: a rating of 6 stars on a COMPLETED transaction: ratings are 1 to 5, of COMPLETED sales")
	}
	id, err := k.AddListing(seller.ID, market.ItemStack{Material: "DIAMOND", Amount: 1}, 10_00, t0, t0.Add(time.Hour))
	must(t, err)
	if id != 1 {
		t.Fatalf("the first listing after two refused sales is #%d, not #1", id)
	}
	must(t, k.Finish())
}

// A player cannot come into the market owing money: no operation takes a
// balance below zero, and the integrity check calls one a problem.
func TestBulkRefusesANegativeBalance(t *testing.T) {
	k := newBulk(t, testStore(t)())
	p := market.Player{ID: uid(90), Name: "Dłużnik"}
	errText(t, k.AddPlayer(p, -1), "bulk: player Dłużnik's balance is -0.01: a balance is never below zero")
	if n := k.Summary().Players; n != 0 {
		t.Fatalf("the refused player was counted: %d", n)
	}
	must(t, k.AddPlayer(p, 0)) // the same player, as they may come
	must(t, k.Finish())
}

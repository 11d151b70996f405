package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
)

// Checked is a market made for the integrity check's suite: what it holds,
// by id, for the edits to name.
type Checked struct {
	At    string    // what opens it (Tables.New)
	Clock time.Time // the market's time when it was closed
	// Ala and Bartek come from a bulk load, Cecylia joined later (her entry
	// is in the log).
	Ala, Bartek, Cecylia uuid.UUID
	// Bulk is a listing of the bulk load, Live one that Ala listed and
	// that is on the market, Gone one she listed and took back (its
	// stack is in her inventory again, GoneRec its record as it was).
	Bulk, Live, Gone int
	GoneRec          []byte
	// Sold is a purchase that completed, InFlight one left in flight
	// (uuid.Nil when none was asked for) on listing Held. RolledBack is a
	// purchase of Live that failed after its delivery: the entry Restored
	// put Live back.
	Sold, InFlight, RolledBack uuid.UUID
	Held                       int
	Restored                   uint64
	// Claimed is a mailbox entry Ala claimed (the expiry of a listing put
	// it there), ClaimedRow its row as it was; Mail is one she has not.
	Claimed    uuid.UUID
	ClaimedRow market.MailRow
	Mail       uuid.UUID
	// LastSeq is the newest entry of the log.
	LastSeq uint64
}

// stopCompensation is a store whose compensating commits fail, which leaves
// a purchase whose step failed in flight, as a crash would.
type stopCompensation struct {
	market.Store
	on bool
}

func (s *stopCompensation) Commit(b *market.Batch) error {
	for _, op := range b.Ops {
		if s.on && op.Kind == market.OpTxState && (op.Tx.State == market.StateRolledBack || op.Tx.State == market.StateFailed) {
			return fmt.Errorf("the test's store refuses the compensation")
		}
	}
	return s.Store.Commit(b)
}

// rowsOf reads the listings and mail a store holds.
type rowsOf struct {
	listings map[int64][]byte
	mail     map[uuid.UUID]market.MailRow
}

func (r *rowsOf) Meta(market.MetaRow) error     { return nil }
func (r *rowsOf) Player(market.PlayerRow) error { return nil }
func (r *rowsOf) Mail(m market.MailRow) error {
	m.Item = slices.Clone(m.Item)
	r.mail[m.ID] = m
	return nil
}
func (r *rowsOf) Listing(l market.ListingRow) error {
	r.listings[l.ID] = slices.Clone(l.Rec)
	return nil
}
func (r *rowsOf) Transaction(market.TxRow) error { return nil }
func (r *rowsOf) Order(market.OrderRow) error    { return nil }

func read(t *testing.T, st market.Store) *rowsOf {
	t.Helper()
	r := &rowsOf{listings: map[int64][]byte{}, mail: map[uuid.UUID]market.MailRow{}}
	must(t, st.Load(r))
	return r
}

// CheckedMarket makes a market that has seen every kind of change: a bulk
// load, a player joining, a deposit, sales and a purchase, a removal, an
// expiry and a mailbox claim; with inFlight other than "", a purchase stops
// before that state and stays in flight.
func CheckedMarket(t *testing.T, tb Tables, inFlight market.State) Checked {
	t.Helper()
	c := Checked{At: tb.New(t), Ala: ids[0], Bartek: ids[1], Cecylia: uuid.MustParse("00000000-0000-4000-8000-000000000003")}
	st := &stopCompensation{Store: tb.Open(t, c.At)}
	b, err := market.NewBulk(st)
	must(t, err)
	load(t, b, 0)
	must(t, b.SetSlot(ids[0], 1, market.ItemStack{ID: stackID(10), Material: "OAK_LOG", Amount: 32}))
	bulk, err := b.AddListing(ids[1], market.ItemStack{ID: stackID(11), Material: "GOLD_INGOT", Amount: 8}, 30_00, t0.Add(-time.Hour), t0.Add(100*24*time.Hour))
	must(t, err)
	must(t, b.Finish())
	c.Bulk = bulk

	clock := market.NewManualClock(t0.Add(2 * time.Hour))
	svc := market.New(st, market.Config{Clock: clock, ListingCooldown: -1})
	must(t, svc.BindMainThread())
	must(t, svc.Enable())
	must(t, svc.WaitHistory()) // ratings and refunds wait for it
	ala := market.Player{ID: ids[0], Name: "Ala"}
	bartek := market.Player{ID: ids[1], Name: "Bartek"}
	_, err = svc.AddPlayer(market.NewPlayer{ID: c.Cecylia, Name: "Cecylia", Balance: 80})
	must(t, err)
	cecylia := market.Player{ID: c.Cecylia, Name: "Cecylia"}
	_, err = svc.Deposit(ala.ID, 10)
	must(t, err)
	step := func() { clock.Advance(time.Second) }
	sell := func(slot int, amount int, price float64) int {
		t.Helper()
		step()
		ps, err := svc.GetPlayer(ala.ID)
		must(t, err)
		s := *ps.Inventory[slot]
		s.Amount = amount
		l, err := svc.SellItem(ala, s, price)
		must(t, err)
		return l.ID
	}
	// A listing that expires: its stack goes to Ala's mailbox, which she
	// claims.
	expiring := sell(0, 1, 2)
	clock.Advance(8 * 24 * time.Hour)
	_, _, err = svc.SweepExpired()
	must(t, err)
	ps, err := svc.GetPlayer(ala.ID)
	must(t, err)
	if len(ps.Mailbox) != 2 {
		t.Fatalf("%d mailbox entries after the expiry, want 2", len(ps.Mailbox))
	}
	c.Claimed, c.Mail = ps.Mailbox[0].ID, ps.Mailbox[1].ID
	c.ClaimedRow = read(t, st).mail[c.Claimed]
	step()
	must(t, svc.ClaimMail(ala.ID, c.Claimed))
	_ = expiring

	sold := sell(0, 2, 5)
	step()
	tx, err := svc.Buy(bartek, sold)
	must(t, err)
	c.Sold = uuid.MustParse(tx.ID)
	c.Gone = sell(1, 32, 3)
	c.GoneRec = read(t, st).listings[int64(c.Gone)]
	step()
	must(t, svc.RemoveListing(c.Gone, ala))
	c.Live = sell(0, 1, 4)
	// The rest of what a market sees: a rating, a refund, a purchase that
	// failed after its delivery and was rolled back (its listing put
	// back), a price alert, and money and items given and taken by an
	// admin. None of it may look wrong to the check.
	step()
	_, err = svc.Rate(bartek.ID, c.Sold.String(), 5)
	must(t, err)
	refunded := sell(0, 1, 7)
	step()
	tx, err = svc.Buy(bartek, refunded)
	must(t, err)
	step()
	admin, err := svc.AddPlayer(market.NewPlayer{Name: "Dawid", Permissions: []string{market.PermAdmin}})
	must(t, err)
	_, err = svc.Refund(tx.ID, admin, market.RefundWithItem)
	must(t, err)
	step()
	must(t, svc.ArmFailure(market.StateCompleted))
	tx, err = svc.Buy(cecylia, c.Live)
	if err == nil {
		t.Fatal("the purchase armed to fail at COMPLETED went through")
	}
	c.RolledBack, c.Restored = uuid.MustParse(tx.ID), svc.Version()
	_, err = svc.AddAlert(c.Cecylia, "diamond", 50)
	must(t, err)
	_, _, err = svc.GiveItem(c.Cecylia, market.ItemStack{Material: "EMERALD", Amount: 3})
	must(t, err)
	_, err = svc.TakeItem(c.Cecylia, 1)
	must(t, err)
	_, err = svc.Withdraw(c.Cecylia, 1.5)
	must(t, err)
	// Auctions: one settled with its winner, one with a bid in its escrow
	// when the market is checked.
	give := func() market.ItemStack {
		t.Helper()
		st, _, err := svc.GiveItem(ala.ID, market.ItemStack{Material: "IRON_INGOT", Amount: 4})
		must(t, err)
		return st
	}
	won, err := svc.StartAuction(ala, give(), 10, 0, time.Minute)
	must(t, err)
	step()
	_, err = svc.Bid(bartek, won.ID, 10)
	must(t, err)
	clock.Advance(2 * time.Minute)
	_, _, err = svc.SweepExpired()
	must(t, err)
	open, err := svc.StartAuction(ala, give(), 10, 0, time.Hour)
	must(t, err)
	step()
	_, err = svc.Bid(cecylia, open.ID, 12)
	must(t, err)
	// Buy orders: one that bought part of a listing and closed filled (the
	// rest of the listing on sale), one resting with its escrow.
	logs, _, err := svc.GiveItem(ala.ID, market.ItemStack{Material: "OAK_LOG", Amount: 16})
	must(t, err)
	step()
	_, err = svc.SellItem(ala, logs, 16)
	must(t, err)
	step()
	_, err = svc.PlaceOrder(bartek, "OAK_LOG", 4, 1.5, 0)
	must(t, err)
	_, err = svc.PlaceOrder(cecylia, "STONE", 10, 0.5, 0)
	must(t, err)
	if inFlight != "" {
		c.Held = sell(0, 1, 6)
		step()
		must(t, svc.ArmFailure(inFlight))
		st.on = true
		tx, err := svc.Buy(cecylia, c.Held)
		if err == nil {
			t.Fatalf("the purchase armed to fail at %s went through", inFlight)
		}
		c.InFlight = uuid.MustParse(tx.ID)
		st.on = false
	}
	c.Clock = clock.Now()
	c.LastSeq = svc.Version()
	must(t, svc.Close())
	return c
}

// runCheck checks the market at c.At through a snapshot.
func runCheck(t *testing.T, tb Tables, c Checked) *market.CheckReport {
	t.Helper()
	snap, err := tb.Snapshot(t, c.At)
	must(t, err)
	defer snap.Close()
	r, err := market.Check(snap, market.NewManualClock(c.Clock))
	must(t, err)
	return r
}

// codes are the codes of a report's problems, each once, sorted.
func codes(r *market.CheckReport) []string {
	var out []string
	for _, p := range r.Problems {
		if !slices.Contains(out, p.Code) {
			out = append(out, p.Code)
		}
	}
	slices.Sort(out)
	return out
}

// problemLines are a report's problems as rynek check prints them.
func problemLines(r *market.CheckReport) string {
	var b strings.Builder
	for _, p := range r.Problems {
		b.WriteString(p.String() + "\n")
	}
	return b.String()
}

// CheckSuite runs the integrity check on markets of the store: a sound one
// passes, and each edit an admin could make by hand (tb.Edits) is found and
// named, with the rows it concerns.
func CheckSuite(t *testing.T, tb Tables) {
	t.Run("a sound market", func(t *testing.T) {
		c := CheckedMarket(t, tb, "")
		r := runCheck(t, tb, c)
		if !r.Sound() || len(r.Notes) > 0 || len(r.Recovery) > 0 {
			t.Fatalf("problems:\n%snotes %q, recovery %q", problemLines(r), r.Notes, r.Recovery)
		}
		// Ala 100.00 + 10.00 deposited, Bartek 250.00, Cecylia 80.00
		// brought less 1.50 withdrawn; fees 0.40 of the historic sale.
		want := market.Money(100_00 + 10_00 + 250_00 + 80_00 - 1_50 + 40)
		// Two listings, the open auction and the rest of the logs; two
		// sales, the settled auction and the order's fill.
		if r.Players != 4 || r.Listings != 4 || r.Completed != 4 || r.Ended != 2 || r.InFlight != 0 || r.Money != want || !r.HasOpening ||
			r.Log.First != 1 || r.Log.Last != c.LastSeq || r.Log.Entries != int(c.LastSeq) {
			t.Fatalf("figures: %+v", r)
		}
		if i := slices.IndexFunc(r.Accounts, func(a market.Account) bool { return a.Name == "bids held by auctions" }); i < 0 ||
			r.Accounts[i].Money != 12_00 || r.Accounts[i].Rows != 1 {
			t.Fatalf("the auctions' escrow: %+v", r.Accounts)
		}
		if i := slices.IndexFunc(r.Accounts, func(a market.Account) bool { return a.Name == "held by buy orders" }); i < 0 ||
			r.Accounts[i].Money != 5_00 || r.Accounts[i].Rows != 1 {
			t.Fatalf("the buy orders' escrow: %+v", r.Accounts)
		}
	})

	t.Run("a purchase in flight is what recovery would finish", func(t *testing.T) {
		c := CheckedMarket(t, tb, market.StateSellerPaid)
		r := runCheck(t, tb, c)
		want := fmt.Sprintf("transaction=%s listing=%d: MONEY_WITHDRAWN -> COMPLETED, would finish it: the item into Cecylia's slot 1", c.InFlight, c.Held)
		if !r.Sound() || r.InFlight != 1 || len(r.Recovery) != 1 || r.Recovery[0] != want || r.Reserved != 1 {
			t.Fatalf("problems:\n%srecovery %q, want %q", problemLines(r), r.Recovery, want)
		}
		// Nothing was done: a second check finds it in flight still.
		if again := runCheck(t, tb, c); again.InFlight != 1 || len(again.Recovery) != 1 {
			t.Fatalf("the first check changed the market: %+v", again)
		}
	})

	t.Run("a market from before the opening account", func(t *testing.T) {
		c := CheckedMarket(t, tb, "")
		tb.edit(t, c.At, "forget the opening account")
		r := runCheck(t, tb, c)
		if !r.Sound() || r.HasOpening || len(r.Notes) != 2 {
			t.Fatalf("problems:\n%snotes %q", problemLines(r), r.Notes)
		}
	})

	// The edits, each on a market of its own: what it does (one edit or
	// more), the market it needs (a purchase in flight or not), and the
	// problems it must bring, by code, with what one of them says.
	type edit struct {
		name string
		args func(c Checked) []any
	}
	one := func(name string, args func(c Checked) []any) []edit { return []edit{{name, args}} }
	// A store that keeps the log's newest seq apart from the entries finds
	// the newest ones deleted by that; one that does not, by the delivery
	// mark left past them.
	endGone := "log-publication-ahead"
	if tb.LogCounter {
		endGone = "log-end-missing"
	}
	for _, e := range []struct {
		what     string
		inFlight market.State
		edits    []edit
		want     []string
		says     func(c Checked) string
	}{
		{"a balance raised", "", one("raise a balance", func(c Checked) []any { return []any{c.Bartek, 100_00} }),
			[]string{"balance-unbooked", "money-unbalanced"}, func(Checked) string {
				return "problem money-unbalanced: the accounts hold 538.90, but the opening account (350.40) and the issuance account (in 90.00, out 1.50) allow 438.90: 100.00 more"
			}},
		{"a raised balance is named", "", one("raise a balance", func(c Checked) []any { return []any{c.Bartek, 100_00} }),
			[]string{"balance-unbooked", "money-unbalanced"}, func(c Checked) string {
				return fmt.Sprintf("problem balance-unbooked player=%s: Bartek's balance is 331.00, booked by Rynek 231.00: 100.00 more, changed outside Rynek\n", c.Bartek)
			}},
		// Money moved from one player to another by hand leaves the total
		// as it was: only the booked balances show it, and whose.
		{"money moved between players", "", []edit{
			{"raise a balance", func(c Checked) []any { return []any{c.Bartek, 30_00} }},
			{"raise a balance", func(c Checked) []any { return []any{c.Cecylia, -30_00} }},
		}, []string{"balance-unbooked"}, func(c Checked) string {
			return fmt.Sprintf("problem balance-unbooked player=%s: Cecylia's balance is 31.50, booked by Rynek 61.50: 30.00 less, changed outside Rynek\n", c.Cecylia)
		}},
		{"a balance below zero", "", one("set a balance", func(c Checked) []any { return []any{c.Cecylia, -5} }),
			[]string{"balance-negative", "balance-unbooked", "money-unbalanced"}, func(c Checked) string {
				return fmt.Sprintf("problem balance-negative player=%s: Cecylia's balance is -0.05", c.Cecylia)
			}},
		{"the fee account raised", "", one("raise the fee account", func(c Checked) []any { return []any{1} }),
			[]string{"money-unbalanced"}, func(Checked) string { return "0.01 more" }},
		{"the volume raised", "", one("raise the volume", func(c Checked) []any { return []any{5_00} }),
			[]string{"counters-disagree"}, func(Checked) string {
				return "problem counters-disagree: the lifetime counters say 4 sales for 28.00, the COMPLETED transactions are 4 for 23.00"
			}},
		{"an event deleted", "", one("delete an event", func(c Checked) []any { return []any{6} }),
			[]string{"log-gap"}, func(Checked) string { return "problem log-gap seq=6: the log goes from 5 to 7" }},
		{"the oldest events deleted", "", one("delete the oldest events", func(c Checked) []any { return []any{2} }),
			[]string{"log-start-missing"}, func(Checked) string {
				return "problem log-start-missing seq=1-2: the log starts at 3, but retention trimmed it only through 0"
			}},
		{"the newest events deleted", "", one("delete the newest events", func(c Checked) []any { return []any{7} }),
			[]string{"listing-not-logged", "log-listing-missing", "transaction-not-logged", endGone}, func(c Checked) string {
				return fmt.Sprintf("problem transaction-not-logged transaction=%s: the purchase was made at", c.Sold)
			}},
		{"an event garbled", "", one("garble an event", func(c Checked) []any { return []any{6, []byte{1, 0}} }),
			[]string{"log-entry-unreadable"}, func(Checked) string {
				return "problem log-entry-unreadable seq=6: the MailClaimed entry cannot be read"
			}},
		{"an event of an unknown kind", "", one("rename an event", func(c Checked) []any { return []any{6, "Bogus"} }),
			[]string{"log-entry-unknown"}, func(Checked) string {
				return `problem log-entry-unknown seq=6: the entry's kind "Bogus" is not one Rynek writes`
			}},
		{"the delivery mark ahead", "", one("mark events delivered", func(c Checked) []any { return []any{int64(c.LastSeq + 5)} }),
			[]string{"log-publication-ahead"}, func(c Checked) string {
				return fmt.Sprintf("delivery to listeners is marked at %d, past the newest entry, %d", c.LastSeq+5, c.LastSeq)
			}},
		{"an inventory copied to another player", "", one("copy an inventory", func(c Checked) []any { return []any{c.Ala, c.Bartek} }),
			[]string{"items-unbalanced", "stack-twice"}, func(Checked) string { return "(1 DIAMOND) is in Ala's slot 1 and in Bartek's slot 1" }},
		{"a listing copied", "", one("copy a listing", func(c Checked) []any { return []any{c.Live, 1_000_000} }),
			[]string{"listing-id-ahead", "listing-not-logged", "stack-twice"}, func(c Checked) string {
				return fmt.Sprintf("is in listing #%d and in listing #1000000", c.Live)
			}},
		{"a removed listing put back", "", one("insert a listing", func(c Checked) []any { return []any{c.Gone, c.GoneRec} }),
			[]string{"log-listing-not-removed", "stack-twice"}, func(c Checked) string {
				return fmt.Sprintf("(32 OAK_LOG) is in Ala's slot 2 and in listing #%d", c.Gone)
			}},
		{"a listing deleted", "", one("delete a listing", func(c Checked) []any { return []any{c.Live} }),
			[]string{"items-unbalanced", "log-listing-missing"}, func(c Checked) string {
				return fmt.Sprintf("problem log-listing-missing listing=%d seq=%d: the log's entry %d put it back (transaction %s rolled back), and no later entry took it off the market, but it is not in the listings table",
					c.Live, c.Restored, c.Restored, c.RolledBack)
			}},
		{"a listing of an unknown seller", "", one("change a listing's seller", func(c Checked) []any { return []any{c.Live, stranger[:]} }),
			[]string{"items-unbalanced", "listing-unknown-seller"}, func(c Checked) string {
				return fmt.Sprintf("problem listing-unknown-seller listing=%d player=%s: listing #%d is sold by a player who does not exist", c.Live, stranger, c.Live)
			}},
		{"a listing garbled", "", one("garble a listing", func(c Checked) []any { return []any{c.Live, []byte{0}} }),
			[]string{"items-unbalanced", "listing-unreadable"}, func(c Checked) string {
				return fmt.Sprintf("problem listing-unreadable listing=%d: listing #%d's record cannot be read", c.Live, c.Live)
			}},
		{"the next listing id lowered", "", one("set the next listing id", func(c Checked) []any { return []any{1} }),
			[]string{"listing-id-ahead"}, func(c Checked) string {
				return fmt.Sprintf("problem listing-id-ahead listing=%d: listing #%d is at or past the next listing id, 1", c.Bulk, c.Bulk)
			}},
		{"a player deleted", "", one("delete a player", func(c Checked) []any { return []any{c.Cecylia} }),
			[]string{"log-player-missing", "money-unbalanced", "order-unknown-buyer", "transaction-unknown-player"}, func(c Checked) string {
				return fmt.Sprintf("problem log-player-missing player=%s seq=%d: the log's entry %d names the player, who is not in the players table", c.Cecylia, c.LastSeq, c.LastSeq)
			}},
		{"a claimed mailbox entry put back", "", one("insert a mailbox entry", func(c Checked) []any {
			m := c.ClaimedRow
			return []any{m.ID, m.Player, m.Item, m.Reason, m.Created, int64(m.PrevPrice)}
		}), []string{"log-mail-not-claimed", "stack-twice"}, func(c Checked) string {
			return fmt.Sprintf("problem log-mail-not-claimed mail=%s seq=6: the log's entry 6 moved the mailbox entry into Ala's inventory", c.Claimed)
		}},
		{"a mailbox entry of no one", "", one("move a mailbox entry", func(c Checked) []any { return []any{c.Mail, stranger} }),
			[]string{"items-unbalanced", "mail-unknown-owner"}, func(c Checked) string {
				return fmt.Sprintf("problem mail-unknown-owner mail=%s player=%s", c.Mail, stranger)
			}},
		{"a purchase garbled", "", one("garble a purchase", func(c Checked) []any { return []any{c.Sold, []byte{0}} }),
			[]string{"counters-disagree", "transaction-unreadable"}, func(c Checked) string {
				return fmt.Sprintf("problem transaction-unreadable transaction=%s: its record cannot be read", c.Sold)
			}},
		{"a purchase in flight ended by hand", market.StateMoneyWithdrawn, one("set a purchase's state", func(c Checked) []any { return []any{c.InFlight, "FAILED"} }),
			[]string{"log-transaction-disagrees", "reservation-dangling", "transaction-state-disagrees"}, func(c Checked) string {
				return fmt.Sprintf("problem reservation-dangling listing=%d transaction=%s: listing #%d is reserved by a purchase that is FAILED", c.Held, c.InFlight, c.Held)
			}},
		{"a purchase in flight deleted", market.StateMoneyWithdrawn, one("delete a purchase", func(c Checked) []any { return []any{c.InFlight} }),
			[]string{"log-transaction-missing", "reservation-dangling"}, func(c Checked) string {
				return fmt.Sprintf("problem reservation-dangling listing=%d transaction=%s: listing #%d is reserved by a purchase that does not exist", c.Held, c.InFlight, c.Held)
			}},
		{"a purchase in flight that recovery cannot undo", market.StateItemDelivered, []edit{
			{"delete a listing", func(c Checked) []any { return []any{c.Held} }},
			{"set a balance", func(c Checked) []any { return []any{c.Ala, 0} }},
		}, []string{"balance-unbooked", "items-unbalanced", "log-listing-missing", "money-unbalanced", "recovery-fails", "transaction-listing-not-held"}, func(c Checked) string {
			return fmt.Sprintf("problem transaction-listing-not-held transaction=%s listing=%d: the purchase is SELLER_PAID, which holds listing #%d, but the listing is not on the market", c.InFlight, c.Held, c.Held)
		}},
	} {
		t.Run(e.what, func(t *testing.T) {
			c := CheckedMarket(t, tb, e.inFlight)
			for _, ed := range e.edits {
				tb.edit(t, c.At, ed.name, ed.args(c)...)
			}
			r := runCheck(t, tb, c)
			slices.Sort(e.want)
			if got := codes(r); !slices.Equal(got, e.want) {
				t.Fatalf("problems %v, want %v:\n%s", got, e.want, problemLines(r))
			}
			if says := e.says(c); !strings.Contains(problemLines(r), says) {
				t.Fatalf("no problem says %q:\n%s", says, problemLines(r))
			}
		})
	}
}

// stranger is a player no market of the suite has.
var stranger = uuid.MustParse("00000000-0000-4000-8000-0000000000ff")

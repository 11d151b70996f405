package market

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/internal/item"
	"github.com/rynek/rynek/market/internal/record"
)

// The integrity check (rynek check), in the spirit of git fsck and
// pg_amcheck.
//
// Check reads a market from a Snapshot, one instant of it, and changes
// nothing. It reads the event log first, then the rows into a service's
// memory as Enable would (a row the service could not load is a problem and
// is left out, so that the rest is still checked), then the history. It
// counts every account and every stack, holds each balance against the one
// Rynek booked beside it (PlayerRow.Booked), looks at every reference
// between rows, holds the tables against what the log says happened, and
// finally runs recovery in memory, on a store that keeps nothing: a
// purchase left in flight is reported as what recovery would do, not done.
//
// What it cannot know exactly it leaves alone rather than guess: see the
// notes on logged (a row older than the log's horizon or written by a bulk
// load has no entry to be held against) and on the opening account (a
// market from before it was kept is checked from its first opening since).

// CheckReport is what Check found: the market's figures, what recovery
// would do, and every problem.
type CheckReport struct {
	// Store names the market read.
	Store string
	// Players, listings (Reserved of them held by a purchase), mailbox
	// entries, and the stacks they hold with their items.
	Players, Listings, Reserved, Mail int
	Stacks                            int
	Items                             int64
	// Transactions: COMPLETED, FAILED or ROLLED_BACK, and in flight.
	Completed, Ended, InFlight int
	// Accounts are where the money is (Service.accountsLocked), Money
	// their sum.
	Accounts []Account
	Money    Money
	// Issued and Opening are the accounts Money is held against;
	// HasOpening is false for a market that has not been opened since the
	// opening account was kept.
	Issued     Issuance
	Opening    Opening
	HasOpening bool
	// Volume and Sales are the market's lifetime counters.
	Volume Money
	Sales  int64
	// Log is the event log as read.
	Log CheckLog
	// Recovery says, for each purchase in flight, what recovery would do
	// with it.
	Recovery []string
	// Notes say what could not be checked, and why; they are not problems.
	Notes []string
	// Problems are everything found wrong; the market is sound when there
	// are none.
	Problems []Problem
}

// CheckLog is the event log as the check read it.
type CheckLog struct {
	// First and Last are the oldest and the newest entry kept (0: none),
	// Entries how many there are.
	First, Last uint64
	Entries     int
	// Trimmed and TrimmedAt are the log's horizon: the newest seq and time
	// retention deleted.
	Trimmed   uint64
	TrimmedAt int64
	// Published is how far delivery to listeners got.
	Published uint64
}

// Problem is one thing Check found wrong.
type Problem struct {
	// Code names the kind of problem, one word with hyphens
	// ("money-unbalanced", "stack-twice", "log-gap").
	Code string
	// IDs are what it concerns, as name=value pairs ("listing=12
	// transaction=…"); empty for the market as a whole.
	IDs string
	// Text says what is wrong, with the figures.
	Text string
}

// String is the problem on one line, as rynek check prints it:
// "problem CODE IDS: TEXT".
func (p Problem) String() string {
	if p.IDs == "" {
		return "problem " + p.Code + ": " + p.Text
	}
	return "problem " + p.Code + " " + p.IDs + ": " + p.Text
}

// Sound reports whether the check found no problem.
func (r *CheckReport) Sound() bool { return len(r.Problems) == 0 }

// checkChunk is how many rows the check reads at a time from the history
// and the log.
const checkChunk = 10_000

// Check checks the market snap holds (see the comment above) at the time
// clock says (nil: the wall clock), which decides what recovery would do
// with an expired listing. An error means the market could not be read;
// what is wrong with it is in the report.
func Check(snap Snapshot, clock Clock) (*CheckReport, error) {
	if clock == nil {
		clock = SystemClock{}
	}
	c := &checker{snap: snap, r: &CheckReport{Store: snap.Describe()}, players: map[uuid.UUID]bool{},
		badListings: map[int64]bool{}, badTx: map[uuid.UUID]bool{}, reservedBy: map[uuid.UUID][]uint32{},
		balances: map[uuid.UUID]*PlayerRow{}}
	if err := c.readLog(); err != nil {
		return nil, fmt.Errorf("read the event log: %w", err)
	}
	c.svc = New(&checkStore{c: c}, Config{Clock: clock, Name: "rynek check"})
	if err := c.svc.load(); err != nil {
		return nil, err
	}
	c.readMemory()
	if err := c.readHistory(); err != nil {
		return nil, fmt.Errorf("read the history: %w", err)
	}
	c.checkMemory()
	c.checkAgainstLog()
	c.recoverInMemory()
	slices.SortFunc(c.r.Problems, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.Code, b.Code), cmp.Compare(a.IDs, b.IDs), cmp.Compare(a.Text, b.Text))
	})
	slices.Sort(c.r.Recovery)
	c.capUnbooked()
	return c.r, nil
}

// codeUnbooked is the problem of a player whose balance is not what Rynek
// booked: the row's balance and booked columns move together in every
// statement Rynek writes, so a difference is an edit by hand, and the
// problem says whose, where money-unbalanced says only how much.
const codeUnbooked = "balance-unbooked"

// maxUnbooked is how many players' balance-unbooked problems a report
// names; the rest are counted in one more, so that a wholesale edit does not
// flood it.
const maxUnbooked = 20

// capUnbooked keeps the first maxUnbooked balance-unbooked problems, in the
// report's order, and puts in place of the rest one that counts them.
func (c *checker) capUnbooked() {
	first := slices.IndexFunc(c.r.Problems, func(p Problem) bool { return p.Code == codeUnbooked })
	if first < 0 {
		return
	}
	end := first
	for end < len(c.r.Problems) && c.r.Problems[end].Code == codeUnbooked {
		end++
	}
	if n := end - first - maxUnbooked; n > 0 {
		players := "players whose balance is"
		if n == 1 {
			players = "player whose balance is"
		}
		rest := Problem{Code: codeUnbooked, Text: fmt.Sprintf("and %d more %s not what Rynek booked", n, players)}
		c.r.Problems = slices.Replace(c.r.Problems, first+maxUnbooked, end, rest)
	}
}

// checker is one run of Check.
type checker struct {
	snap Snapshot
	r    *CheckReport
	svc  *Service // the market as the service loads it, less the rows it could not
	meta MetaRow
	log  logFacts
	// players are the players whose rows were read.
	players map[uuid.UUID]bool
	// badListings and badTx are rows left out of memory: the service
	// could not load them.
	badListings map[int64]bool
	badTx       map[uuid.UUID]bool
	// reservedBy are the listings reserved by a transaction that is not
	// in flight, by that transaction's id, until the history says what
	// it is.
	reservedBy map[uuid.UUID][]uint32
	// completed sums the COMPLETED transactions, for the counters.
	completedVolume Money
	completedSales  int64
	// balances are the players' rows as read, which recovery's store
	// changes in memory (checkStore).
	balances map[uuid.UUID]*PlayerRow
}

// problem records a problem; ids are name, value pairs.
func (c *checker) problem(code string, ids []any, format string, args ...any) {
	var b strings.Builder
	for i := 0; i+1 < len(ids); i += 2 {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s=%v", ids[i], ids[i+1])
	}
	c.r.Problems = append(c.r.Problems, Problem{Code: code, IDs: b.String(), Text: fmt.Sprintf(format, args...)})
}

// note records what could not be checked, and why.
func (c *checker) note(format string, args ...any) {
	c.r.Notes = append(c.r.Notes, fmt.Sprintf(format, args...))
}

// at renders unix ms for a message.
func at(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05.000 UTC") }

// checkLoader passes the rows of the snapshot to the service's loader,
// checking each first: a row the loader would refuse is a problem and is
// left out, so that one bad row does not stop the check of the rest.
type checkLoader struct {
	c *checker
	l Loader
}

func (x checkLoader) Meta(m MetaRow) error {
	c := x.c
	c.meta = m
	c.r.Opening, c.r.HasOpening, c.r.Issued = m.Opening, m.HasOpening, m.Issuance
	c.r.Volume, c.r.Sales = m.Volume, m.Sales
	c.r.Log.Trimmed, c.r.Log.TrimmedAt, c.r.Log.Published = m.Trimmed, m.TrimmedAt, m.PublishedSeq
	return x.l.Meta(m)
}

func (x checkLoader) Player(p PlayerRow) error {
	c := x.c
	c.players[p.ID] = true
	c.r.Players++
	if _, err := item.DecodeInventory(p.Inventory); err != nil {
		c.problem("player-unreadable", []any{"player", p.ID}, "the inventory of %s cannot be read (%v): its stacks are not counted", p.Name, err)
		p.Inventory = nil
	}
	if _, err := decodeExtra(p.Extra); err != nil {
		c.problem("player-unreadable", []any{"player", p.ID}, "the market data (favourites, alerts) of %s cannot be read (%v)", p.Name, err)
		p.Extra = nil
	}
	if p.Balance < 0 {
		c.problem("balance-negative", []any{"player", p.ID}, "%s's balance is %s: no operation takes a balance below zero", p.Name, FormatMoney(p.Balance))
	}
	if p.Balance != p.Booked {
		c.problem(codeUnbooked, []any{"player", p.ID}, "%s's balance is %s, booked by Rynek %s: %s %s, changed outside Rynek",
			p.Name, FormatMoney(p.Balance), FormatMoney(p.Booked), FormatMoney(absMoney(p.Balance-p.Booked)), moreOrLess(p.Balance > p.Booked))
	}
	c.balances[p.ID] = &PlayerRow{Balance: p.Balance, Version: p.Version}
	return x.l.Player(p)
}

func (x checkLoader) Mail(m MailRow) error {
	c := x.c
	if !c.players[m.Player] {
		c.problem("mail-unknown-owner", []any{"mail", m.ID, "player", m.Player}, "the mailbox entry belongs to a player who does not exist: its stack is not counted")
		return nil
	}
	if _, err := item.Decode(m.Item); err != nil {
		c.problem("mail-unreadable", []any{"mail", m.ID, "player", m.Player}, "the mailbox entry's item cannot be read (%v): its stack is not counted", err)
		return nil
	}
	c.r.Mail++
	return x.l.Mail(m)
}

func (x checkLoader) Listing(row ListingRow) error {
	c := x.c
	if row.ID <= 0 || row.ID > math.MaxInt32 {
		c.badListings[row.ID] = true
		c.problem("listing-unreadable", []any{"listing", row.ID}, "a listing id must be 1 to %d", math.MaxInt32)
		return nil
	}
	var r listingRecord
	seller, err := decodeListing(row.Rec, &r)
	if err != nil {
		c.badListings[row.ID] = true
		c.problem("listing-unreadable", []any{"listing", row.ID}, "listing #%d's record cannot be read (%v): its stack is not counted", row.ID, err)
		return nil
	}
	if !c.players[seller] {
		c.badListings[row.ID] = true
		c.problem("listing-unknown-seller", []any{"listing", row.ID, "player", seller},
			"listing #%d is sold by a player who does not exist: its stack is not counted", row.ID)
		return nil
	}
	if next := max(c.meta.NextListingID, 1); row.ID >= next {
		c.problem("listing-id-ahead", []any{"listing", row.ID}, "listing #%d is at or past the next listing id, %d: the market would give #%d to a new listing again",
			row.ID, next, row.ID)
	}
	return x.l.Listing(row)
}

func (x checkLoader) Order(row OrderRow) error {
	c := x.c
	if row.ID <= 0 || row.ID > math.MaxInt32 {
		c.problem("order-unreadable", []any{"order", row.ID}, "an order id must be 1 to %d", math.MaxInt32)
		return nil
	}
	o, err := record.DecodeOrder(row.Rec)
	if err != nil {
		c.problem("order-unreadable", []any{"order", row.ID}, "buy order #%d's record cannot be read (%v): its escrow is not counted", row.ID, err)
		return nil
	}
	if !c.players[o.Buyer] {
		c.problem("order-unknown-buyer", []any{"order", row.ID, "player", o.Buyer},
			"buy order #%d was placed by a player who does not exist: its escrow is not counted", row.ID)
		return nil
	}
	if next := max(c.meta.NextListingID, 1); row.ID >= next {
		c.problem("listing-id-ahead", []any{"order", row.ID}, "buy order #%d is at or past the next listing id, %d: the market would give #%d to a new listing again",
			row.ID, next, row.ID)
	}
	return x.l.Order(row)
}

func (x checkLoader) Transaction(row TxRow) error {
	if si := stateIndex(row.State); si >= 0 && States()[si].Terminal() {
		return nil // a store from before the counters loads its history here: it is checked with the rest of it
	}
	if x.c.transaction(row) == nil {
		return nil
	}
	return x.l.Transaction(row)
}

// transaction checks a transaction row, in flight or history, counts it,
// and returns it decoded; nil when the service could not load it.
func (c *checker) transaction(row TxRow) *transactionRecord {
	si := stateIndex(row.State)
	if si < 0 {
		c.badTx[row.ID] = true
		c.problem("transaction-unreadable", []any{"transaction", row.ID}, "its state %q is not a state of the purchase", row.State)
		return nil
	}
	t := &transactionRecord{id: row.ID, state: uint8(si)}
	buyer, seller, err := decodeTx(row.Rec, t)
	if err != nil {
		c.badTx[row.ID] = true
		c.problem("transaction-unreadable", []any{"transaction", row.ID}, "its record cannot be read (%v)", err)
		return nil
	}
	for _, p := range []uuid.UUID{buyer, seller} {
		if !c.players[p] {
			c.badTx[row.ID] = true
			c.problem("transaction-unknown-player", []any{"transaction", row.ID, "player", p}, "its buyer or seller does not exist")
			return nil
		}
	}
	if last := t.tl[len(t.tl)-1].State; last != t.state {
		c.problem("transaction-state-disagrees", []any{"transaction", row.ID},
			"its state is %s but its record's timeline ends in %s: every step writes both", row.State, States()[last])
	}
	switch st := t.State(); {
	case st == StateCompleted:
		c.r.Completed++
		c.completedVolume += t.price
		c.completedSales++
	case st.Terminal():
		c.r.Ended++
	default:
		c.r.InFlight++
	}
	if listings, ok := c.reservedBy[row.ID]; ok && t.State().Terminal() {
		for _, id := range listings {
			c.problem("reservation-dangling", []any{"listing", id, "transaction", row.ID},
				"listing #%d is reserved by a purchase that is %s: no one can buy or remove it", id, row.State)
		}
		delete(c.reservedBy, row.ID)
	}
	c.heldAgainstLog(t)
	return t
}

// readHistory checks the finished transactions.
func (c *checker) readHistory() error {
	var after [16]byte
	for {
		n, err := c.snap.LoadHistory(after, checkChunk, func(row TxRow) error {
			after = row.ID
			c.transaction(row)
			return nil
		})
		if err != nil {
			return err
		}
		if n < checkChunk {
			break
		}
	}
	for id, listings := range c.reservedBy {
		if c.badTx[id] {
			continue // the purchase's row is a problem of its own
		}
		for _, l := range listings {
			c.problem("reservation-dangling", []any{"listing", l, "transaction", id},
				"listing #%d is reserved by a purchase that does not exist: no one can buy or remove it", l)
		}
	}
	return nil
}

// readMemory counts what the service loaded and notes the reservations
// that no purchase in flight holds, for the history to say what holds
// them.
func (c *checker) readMemory() {
	s := c.svc
	s.listings.Each(func(r *listingRecord) {
		c.r.Listings++
		if r.reserved == uuid.Nil {
			return
		}
		c.r.Reserved++
		if t := s.txByID[r.reserved]; t == nil || t.State().Terminal() {
			c.reservedBy[r.reserved] = append(c.reservedBy[r.reserved], r.id)
		}
	})
}

// checkMemory checks what the service loaded as a whole: the purchases in
// flight hold their listings, every stack is in one place, and money and
// items add up to the opening and issuance accounts.
func (c *checker) checkMemory() {
	s := c.svc
	for _, t := range s.txByID {
		switch t.State() {
		case StateListingReserved, StateMoneyWithdrawn, StateSellerPaid:
			if r := s.listings.Get(t.listing); r == nil || r.reserved != t.id {
				c.problem("transaction-listing-not-held", []any{"transaction", t.id, "listing", t.listing},
					"the purchase is %s, which holds listing #%d, but the listing is %s", t.State(), t.listing, c.listingState(r))
			}
		}
	}
	places := make(map[uuid.UUID]stackPlace, c.r.Listings+c.r.Players*4)
	s.eachStackLocked(func(it item.Item, where stackPlace) {
		if first, ok := places[it.UID]; ok {
			c.problem("stack-twice", []any{"stack", it.UID}, "the stack (%d %s) is in %s and in %s", it.Amount, catalog.Material(it.Mat).Key,
				s.placeName(first), s.placeName(where))
			return
		}
		places[it.UID] = where
		c.r.Stacks++
		c.r.Items += int64(it.Amount)
	})
	c.r.Accounts = s.accountsLocked()
	for _, a := range c.r.Accounts {
		c.r.Money += a.Money
	}
	if s.feeBalance < 0 {
		c.problem("fee-account-negative", nil, "the fee account holds %s: fees are only ever added to it, or given back from it", FormatMoney(s.feeBalance))
	}
	i := c.meta.Issuance
	if !c.meta.HasOpening {
		c.note("money and items are not held against an opening account: this market has not been opened by a Rynek that keeps one; opening it once records it")
	} else {
		o := c.meta.Opening
		if want := o.Money + i.MoneyIn - i.MoneyOut; c.r.Money != want {
			c.problem("money-unbalanced", nil, "the accounts hold %s, but the opening account (%s) and the issuance account (in %s, out %s) allow %s: %s %s; a balance, the fee account, a purchase, an auction's bid or a buy order's escrow was changed outside Rynek",
				FormatMoney(c.r.Money), FormatMoney(o.Money), FormatMoney(i.MoneyIn), FormatMoney(i.MoneyOut), FormatMoney(want),
				FormatMoney(absMoney(c.r.Money-want)), moreOrLess(c.r.Money > want))
		}
		if want := o.Items + i.ItemsIn - i.ItemsOut; c.r.Items != want {
			c.problem("items-unbalanced", nil, "the stacks hold %d items, but the opening account (%d) and the issuance account (in %d, out %d) allow %d: %d %s",
				c.r.Items, o.Items, i.ItemsIn, i.ItemsOut, want, max(c.r.Items-want, want-c.r.Items), moreOrLess(c.r.Items > want))
		}
	}
	if c.meta.HasCounters {
		if c.meta.Volume != c.completedVolume || c.meta.Sales != c.completedSales {
			c.problem("counters-disagree", nil, "the lifetime counters say %d sales for %s, the COMPLETED transactions are %d for %s",
				c.meta.Sales, FormatMoney(c.meta.Volume), c.completedSales, FormatMoney(c.completedVolume))
		}
	}
}

// listingState says what listing r (nil: none) is, for a message.
func (c *checker) listingState(r *listingRecord) string {
	switch {
	case r == nil:
		return "not on the market"
	case r.reserved == uuid.Nil:
		return "not reserved"
	}
	return "reserved by transaction " + r.reserved.String()
}

func absMoney(m Money) Money { return max(m, -m) }

func moreOrLess(more bool) string {
	if more {
		return "more"
	}
	return "less"
}

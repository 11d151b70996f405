// Package wire holds the JSON shapes in which Rynek's listings, transactions
// and events leave the process: the console's JSONL export today, the HTTP
// read API and its event stream. They are answer types, never the domain structs, so that the wire
// stays stable when the market's types change.
//
// Conventions: keys are camelCase; money is a decimal string made from
// integer cents ("703.20", no thousands separators), so no client parses a
// float; times are RFC 3339 in UTC with exactly three decimals (Time); categories and states are their
// contract names; ids are as in the contract: a listing's an integer, a
// transaction's a string, a player's a UUID string.
//
// Text that players typed (names, display names, lore) is carried as typed,
// JSON-escaped: a client must escape it for its own medium (HTML, a
// terminal) as it would any untrusted text.
package wire

import (
	"math"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/playertext"
)

// Player is a player as others see them.
type Player struct {
	UUID string `json:"uuid"`
	Name string `json:"name"`
}

// Enchantment is one enchantment of an item.
type Enchantment struct {
	Key   string `json:"key"`   // vanilla key, "sharpness"
	Name  string `json:"name"`  // readable, "Sharpness"
	Level int    `json:"level"` // 1..255
}

// Item is an item stack.
type Item struct {
	Material string `json:"material"` // vanilla key, "DIAMOND_AXE"
	// Name is what a player reads: the display name without § codes, or the
	// material's readable name.
	Name string `json:"name"`
	// DisplayName is the display name with its § formatting codes, for
	// clients that render them; empty when the item has none.
	DisplayName  string        `json:"displayName,omitempty"`
	Amount       int           `json:"amount"`
	Enchanted    bool          `json:"enchanted"`
	Enchantments []Enchantment `json:"enchantments"`
	Lore         []string      `json:"lore"`
	// StackID is the stack's identity, the same while it moves between an
	// inventory, a listing, a transaction and a mailbox.
	StackID string `json:"stackId"`
}

// Listing is an active offer (or one as it was when an event carried it).
type Listing struct {
	ID         int      `json:"id"`
	Item       Item     `json:"item"`
	Categories []string `json:"categories"`
	Price      string   `json:"price"`
	UnitPrice  string   `json:"unitPrice"`
	Seller     Player   `json:"seller"`
	CreatedAt  Time     `json:"createdAt"`
	ExpiresAt  Time     `json:"expiresAt"`
	Reserved   bool     `json:"reserved"` // a purchase of it is in progress
	Kind       string   `json:"kind"`     // "fixed" or "auction"
	Auction    *Auction `json:"auction,omitempty"`
}

// Auction is the bidding of a listing sold by auction. Price is then what
// it costs now (the current bid, or the starting bid before the first).
type Auction struct {
	StartingBid string  `json:"startingBid"`
	CurrentBid  *string `json:"currentBid"` // null before the first bid
	MinimumBid  string  `json:"minimumBid"` // the least the next bid may be
	Bids        int     `json:"bids"`
	Leader      *Player `json:"leader"` // null before the first bid
	EndsAt      Time    `json:"endsAt"`
	BuyNow      *string `json:"buyNow"` // null: none
}

// Bid is one bid of an auction's history.
type Bid struct {
	Bidder Player `json:"bidder"`
	Amount string `json:"amount"`
	At     Time   `json:"at"`
}

// BidPlaced is what a BidPlacedEvent adds to its listing: the bid, the
// leader it outbid (null: none) and the auction's end after it.
type BidPlaced struct {
	Bidder         Player  `json:"bidder"`
	Amount         string  `json:"amount"`
	PreviousLeader *Player `json:"previousLeader"`
	EndsAt         Time    `json:"endsAt"`
}

// AuctionEnded is an AuctionEndedEvent: the auction's listing and, when it
// was sold, its winner, price and transaction (each null when nobody bid).
type AuctionEnded struct {
	ListingID     int     `json:"listingId"`
	Winner        *Player `json:"winner"`
	Price         *string `json:"price"`
	TransactionID *string `json:"transactionId"`
}

// StateTime is when a transaction entered a state.
type StateTime struct {
	State string `json:"state"`
	At    Time   `json:"at"`
}

// Transaction is one purchase attempt and its outcome.
type Transaction struct {
	ID        string `json:"id"`
	ListingID int    `json:"listingId"`
	Buyer     Player `json:"buyer"`
	Seller    Player `json:"seller"`
	Item      Item   `json:"item"`
	Price     string `json:"price"`
	Fee       string `json:"fee"`
	SellerNet string `json:"sellerNet"` // price less fee: what the seller received
	State     string `json:"state"`     // one of the contract's eight states
	// ErrorCode says why a FAILED or ROLLED_BACK transaction did not
	// complete; empty otherwise.
	ErrorCode          string      `json:"errorCode,omitempty"`
	CreatedAt          Time        `json:"createdAt"`
	UpdatedAt          Time        `json:"updatedAt"` // when it entered its current state
	Timeline           []StateTime `json:"timeline"`
	DeliveredToMailbox bool        `json:"deliveredToMailbox"`
	Rating             int         `json:"rating,omitempty"` // the buyer's 1-5 stars; absent when not rated
	// BuyOrder is the buy order the purchase filled (its
	// BuyOrderFilledEvent follows); absent for any other purchase.
	BuyOrder int `json:"buyOrder,omitempty"`
	// Pending is true while the store has not yet saved the transaction's
	// state (the server commits behind its tick); absent once it has.
	Pending bool `json:"pending,omitempty"`
}

// Event is one of the market's published events (the contract's three,
// the auctions' two, the buy orders' three), as a JSONL line or the data
// of a server-sent event (whose id is Seq).
type Event struct {
	Seq     uint64   `json:"seq"`
	Event   string   `json:"event"` // ListingCreatedEvent, ListingRemovedEvent, TransactionCompletedEvent, …
	At      Time     `json:"at"`
	Origin  string   `json:"origin,omitempty"`  // the server whose change it was, in a network
	Listing *Listing `json:"listing,omitempty"` // created and removed
	// Reason says why: a listing removed ("removed", "admin-removed" or
	// "force-expire"), a buy order closed ("filled", "cancelled" or
	// "expired").
	Reason      string        `json:"reason,omitempty"`
	Transaction *Transaction  `json:"transaction,omitempty"` // completed
	Bid         *BidPlaced    `json:"bid,omitempty"`         // a bid: with the auction after it as listing
	Ended       *AuctionEnded `json:"ended,omitempty"`       // an auction's end
	Order       *Order        `json:"order,omitempty"`       // a buy order's events: the order after it
	Fill        *OrderFill    `json:"fill,omitempty"`        // a buy order's fill
	Refund      string        `json:"refund,omitempty"`      // a buy order closed: its escrow back to the buyer
}

// Money renders a contract price (a float of major units) as a decimal
// string of its cents.
func Money(v float64) string { return market.FormatMoney(market.Money(math.Round(v * 100))) }

// NewPlayer is the wire form of a player.
func NewPlayer(p market.Player) Player { return Player{UUID: p.ID.String(), Name: p.Name} }

// NewItem is the wire form of an item stack.
func NewItem(s market.ItemStack) Item {
	it := Item{Material: s.Material, Name: playertext.StripColors(s.DisplayName), DisplayName: s.DisplayName,
		Amount: s.Amount, Enchanted: len(s.Enchantments) > 0, Enchantments: []Enchantment{},
		Lore: append([]string{}, s.Lore...), StackID: s.ID.String()}
	if it.Name == "" {
		it.Name = s.Material
		if info, ok := catalog.LookupMaterial(s.Material); ok {
			it.Name = info.Name
		}
	}
	for _, e := range s.Enchantments {
		name := e.Key
		if info, ok := catalog.LookupEnchantment(e.Key); ok {
			name = info.Name
		}
		it.Enchantments = append(it.Enchantments, Enchantment{Key: e.Key, Name: name, Level: e.Level})
	}
	return it
}

// NewListing is the wire form of a listing.
func NewListing(l market.Listing) Listing {
	out := Listing{ID: l.ID, Item: NewItem(l.Item), Categories: make([]string, 0, len(l.Categories)),
		Price: Money(l.Price), UnitPrice: Money(l.UnitPrice()),
		Seller:    NewPlayer(market.Player{ID: l.Seller, Name: l.SellerName}),
		CreatedAt: At(l.CreatedAt), ExpiresAt: At(l.ExpiresAt), Reserved: l.Reserved, Kind: l.Kind()}
	for _, c := range l.Categories {
		out.Categories = append(out.Categories, c.String())
	}
	if a := l.Auction; a != nil {
		out.Auction = &Auction{StartingBid: Money(a.StartingBid), MinimumBid: Money(a.MinimumBid), Bids: a.Bids, EndsAt: At(l.ExpiresAt)}
		if a.Bids > 0 {
			bid, leader := Money(a.CurrentBid), NewPlayer(market.Player{ID: a.Leader, Name: a.LeaderName})
			out.Auction.CurrentBid, out.Auction.Leader = &bid, &leader
		}
		if a.BuyNow > 0 {
			buyNow := Money(a.BuyNow)
			out.Auction.BuyNow = &buyNow
		}
	}
	return out
}

// NewBid is the wire form of one bid of an auction.
func NewBid(b market.AuctionBid) Bid {
	return Bid{Bidder: NewPlayer(market.Player{ID: b.Bidder, Name: b.BidderName}), Amount: Money(b.Amount), At: At(b.At)}
}

// NewTransaction is the wire form of a transaction.
func NewTransaction(t market.Transaction) Transaction {
	out := Transaction{ID: t.ID, ListingID: t.ListingID,
		Buyer:  NewPlayer(market.Player{ID: t.Buyer, Name: t.BuyerName}),
		Seller: NewPlayer(market.Player{ID: t.Seller, Name: t.SellerName}),
		Item:   NewItem(t.Item), Price: Money(t.Price), Fee: Money(t.Fee), SellerNet: Money(t.SellerNet),
		State: string(t.State), ErrorCode: t.ErrorCode, Timeline: make([]StateTime, 0, len(t.Timeline)),
		DeliveredToMailbox: t.DeliveredToMailbox, Rating: t.Rating, BuyOrder: t.BuyOrder, Pending: t.Pending}
	for _, st := range t.Timeline {
		out.Timeline = append(out.Timeline, StateTime{State: string(st.State), At: At(st.At)})
	}
	if n := len(out.Timeline); n > 0 {
		out.CreatedAt, out.UpdatedAt = out.Timeline[0].At, out.Timeline[n-1].At
	}
	return out
}

// NewEvent is the wire form of an event.
func NewEvent(e market.Event) Event {
	out := Event{Seq: e.Seq(), Event: e.EventName(), At: At(e.At()), Origin: e.Origin()}
	if orderEvent(&out, e) {
		return out
	}
	switch e := e.(type) {
	case market.ListingCreatedEvent:
		l := NewListing(e.Listing())
		out.Listing = &l
	case market.ListingRemovedEvent:
		l := NewListing(e.Listing())
		out.Listing, out.Reason = &l, e.Reason()
	case market.TransactionCompletedEvent:
		t := NewTransaction(e.Transaction())
		out.Transaction = &t
	case market.BidPlacedEvent:
		l := e.Listing()
		wl := NewListing(l)
		out.Listing = &wl
		out.Bid = &BidPlaced{Bidder: NewPlayer(market.Player{ID: e.Bidder(), Name: l.Auction.LeaderName}), Amount: Money(e.Amount()), EndsAt: At(e.EndsAt())}
		if prev := e.PreviousLeader(); prev != uuid.Nil {
			p := NewPlayer(market.Player{ID: prev, Name: e.PreviousLeaderName()})
			out.Bid.PreviousLeader = &p
		}
	case market.AuctionEndedEvent:
		out.Ended = &AuctionEnded{ListingID: e.ListingID()}
		if w := e.Winner(); w != uuid.Nil {
			p, price, tx := NewPlayer(market.Player{ID: w, Name: e.WinnerName()}), Money(e.Price()), e.TransactionID()
			out.Ended.Winner, out.Ended.Price, out.Ended.TransactionID = &p, &price, &tx
		}
	}
	return out
}

package market

import (
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/internal/item"
)

// Money is an amount in minor units (grosze, cents). Inside the service all
// arithmetic is integer so that no fraction of a cent is ever created or lost;
// the contract's float64 prices exist only at the API edge.
type Money int64

// Float returns the amount in major units, as the contract's double.
func (m Money) Float() float64 { return float64(m) / 100 }

// Permission names understood by the service.
const (
	// PermAdmin lets a player remove anyone's listing and force-expire listings.
	PermAdmin = "market.admin"
)

// Player is the acting game player as the contract passes it: an identity, a
// display name and permissions. The service looks the player up in its world by
// ID; Name and Permissions come from the world record, not from the caller, so
// a forged Player value cannot grant itself market.admin.
type Player struct {
	ID          uuid.UUID
	Name        string
	Permissions []string
}

// HasPermission reports whether the player holds perm.
func (p Player) HasPermission(perm string) bool {
	for _, q := range p.Permissions {
		if q == perm {
			return true
		}
	}
	return false
}

// Enchantment is one enchantment on an item: a lower-case vanilla key and a level.
type Enchantment struct {
	Key   string
	Level int
}

// ItemStack is a game item stack as players trade it.
//
// ID is the stack's own identity: it never changes while the stack moves
// between an inventory, a listing, a transaction and a mailbox, so a stack can
// be traced and the conservation tests can prove that no stack is duplicated or
// lost. Splitting a stack (selling part of it) gives the split-off part a new ID.
type ItemStack struct {
	ID       uuid.UUID
	Material string // "DIAMOND_SWORD", "minecraft:diamond_sword" or "nexo:ruby_sword"; see CanonicalMaterialKey
	Amount   int    // 1..MaxStack, or the material's max stack size when MaxStack is 0
	// MaxStack is the item's own max stack size (Paper's max_stack_size
	// component, 1..MaxItemStack), or 0 for the material's.
	MaxStack     int
	DisplayName  string        // may carry § colour codes; untrusted
	Lore         []string      // untrusted
	Enchantments []Enchantment // sorted by key, keys unique
	// Original is the item as another system stored it, kept whole by an
	// importer so that an export gives it back unchanged: an importer
	// cannot know every component or plugin key a server wrote. Zero for
	// items made here. It is provenance: it never makes two stacks differ
	// in kind, and it is neither searched nor shown.
	Original ItemOriginal
}

// ItemOriginal is an item in another system's format, kept verbatim.
type ItemOriginal struct {
	Format OriginalFormat
	Data   string // at most MaxOriginalBytes, valid UTF-8; never empty when Format is set
}

// OriginalFormat names the format, and its version, of an ItemOriginal.
type OriginalFormat uint8

// The formats an ItemOriginal may have. A new format or a new version of one
// gets a new number, so that stored data never changes meaning.
const (
	OriginalNone OriginalFormat = item.OriginalNone
	// OriginalBukkitYAML is a Bukkit ItemStack as the original plugin
	// (GrzybcioRynek) wrote it into its YAML files: the item's subtree,
	// re-encoded canonically (two-space indent, keys sorted, no comments).
	OriginalBukkitYAML OriginalFormat = item.OriginalBukkitYAML
)

// Listing is an active offer: one item stack at a total price.
type Listing struct {
	ID         int
	Seller     uuid.UUID
	SellerName string
	Item       ItemStack
	Price      float64
	CreatedAt  time.Time
	ExpiresAt  time.Time
	Categories []catalog.Category
	// Reserved is true while a purchase of this listing is in progress.
	Reserved bool
	// Auction is the bidding of a listing sold by auction, nil for one
	// sold at a fixed price. Price is then what the listing costs now: the
	// leading bid, or the starting bid before the first; ExpiresAt is the
	// auction's end.
	Auction *AuctionState
}

// AuctionState is the bidding of an auction as a read sees it.
type AuctionState struct {
	StartingBid float64
	// CurrentBid is the leading bid, 0 before the first bid; Leader and
	// LeaderName its bidder. Bids counts the bids placed.
	CurrentBid float64
	Leader     uuid.UUID
	LeaderName string
	Bids       int
	// MinimumBid is the least the next bid may be.
	MinimumBid float64
	// BuyNow is the price at which anyone may buy the stack at once while
	// the leading bid is below it; 0: none.
	BuyNow float64
}

// Kind is "auction" for a listing sold by auction, "fixed" for one sold
// at a fixed price.
func (l Listing) Kind() string {
	if l.Auction != nil {
		return "auction"
	}
	return "fixed"
}

// Clone returns a deep copy of s: no slice is shared with s.
func (s ItemStack) Clone() ItemStack {
	s.Lore = slices.Clone(s.Lore)
	s.Enchantments = slices.Clone(s.Enchantments)
	return s
}

// Clone returns a deep copy of l: no slice is shared with l.
func (l Listing) Clone() Listing {
	l.Item = l.Item.Clone()
	l.Categories = slices.Clone(l.Categories)
	if l.Auction != nil {
		a := *l.Auction
		l.Auction = &a
	}
	return l
}

// UnitPrice is the price of one item of the stack.
func (l Listing) UnitPrice() float64 {
	if l.Item.Amount <= 0 {
		return l.Price
	}
	return l.Price / float64(l.Item.Amount)
}

// State is a transaction state. The names are the contract's, verbatim.
type State string

// The eight transaction states of the contract.
const (
	StateCreated         State = "CREATED"
	StateListingReserved State = "LISTING_RESERVED"
	StateMoneyWithdrawn  State = "MONEY_WITHDRAWN"
	StateSellerPaid      State = "SELLER_PAID"
	StateItemDelivered   State = "ITEM_DELIVERED"
	StateCompleted       State = "COMPLETED"
	StateRolledBack      State = "ROLLED_BACK"
	StateFailed          State = "FAILED"
)

// States lists all eight states in saga order, terminal ones last.
func States() []State {
	return []State{StateCreated, StateListingReserved, StateMoneyWithdrawn, StateSellerPaid,
		StateItemDelivered, StateCompleted, StateRolledBack, StateFailed}
}

// Terminal reports whether no further step follows s.
func (s State) Terminal() bool {
	return s == StateCompleted || s == StateRolledBack || s == StateFailed
}

// StateTime records when a transaction entered a state.
type StateTime struct {
	State State
	At    time.Time
}

// Transaction is one purchase attempt and its outcome.
type Transaction struct {
	ID         string
	ListingID  int
	Buyer      uuid.UUID
	BuyerName  string
	Seller     uuid.UUID
	SellerName string
	Item       ItemStack
	Price      float64
	Fee        float64
	SellerNet  float64
	State      State
	// ErrorCode says why a FAILED or ROLLED_BACK transaction did not complete
	// (e.g. "WITHDRAW_FAILED"); empty otherwise.
	ErrorCode string
	// Timeline holds every state the transaction passed through, in order.
	Timeline []StateTime
	// DeliveredToMailbox is true when the buyer's inventory was full and the
	// item went to the buyer's mailbox instead.
	DeliveredToMailbox bool
	// Rating is the buyer's rating of a COMPLETED purchase, 1 to 5 stars
	// (Rate); 0 when not rated.
	Rating int
	// BuyOrder is the buy order whose fill the purchase was, 0 for none: a
	// reader of the events then knows a BuyOrderFilledEvent follows, which
	// says what the fill left of its listing.
	BuyOrder int
	// Pending is set while the store has not yet made the transaction's
	// state durable. Committing behind the tick (Config.CommitBehind),
	// memory shows a purchase at once and the committer saves it a moment
	// later; if the store refuses it, the purchase is undone and never
	// happened, and no event ever told of it. Events never carry it.
	Pending bool
}

// Clone returns a deep copy of t: no slice is shared with t.
func (t Transaction) Clone() Transaction {
	t.Item = t.Item.Clone()
	t.Timeline = slices.Clone(t.Timeline)
	return t
}

// CreatedAt is when the transaction was created.
func (t Transaction) CreatedAt() time.Time {
	if len(t.Timeline) == 0 {
		return time.Time{}
	}
	return t.Timeline[0].At
}

// MailboxEntry is an item waiting for its owner: returned by a removal or an
// expiry, or a purchase that did not fit in the buyer's inventory.
type MailboxEntry struct {
	ID            uuid.UUID
	Item          ItemStack
	Reason        string // "removed", "admin-removed", "force-expire", "expired", "purchase-overflow"
	CreatedAt     time.Time
	PreviousPrice float64 // the listing's price, 0 when not from a listing
}

// InventorySize is the number of storage slots of a player inventory.
const InventorySize = item.InventorySize

// PlayerState is a snapshot of everything the world holds about a player.
type PlayerState struct {
	Player
	Balance   float64
	Inventory [InventorySize]*ItemStack // nil = empty slot
	Mailbox   []MailboxEntry
}

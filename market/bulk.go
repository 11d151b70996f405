package market

import (
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Bulk prepares a data load for an empty store: players, inventories,
// listings, mail and historical transactions. It is a data load, not market
// activity: it publishes no events and skips the sell rules (limits,
// cooldowns), but every item and price is validated like live input.
//
// Rows are flushed to the store in chunks, so a million listings do not sit
// in memory twice.
type Bulk struct {
	store   Store
	b       Batch
	nextID  int64
	fee     Money
	volume  Money // completed historic sales, for the persisted counters
	sales   int64
	players map[uuid.UUID]*bulkPlayer
	order   []*bulkPlayer
	chunk   int
}

// bulkPlayer is a player row kept until Finish, so that its inventory is
// written once.
type bulkPlayer struct {
	row PlayerRow
	inv inventory
}

// NewBulk starts a bulk load into store. The store must be empty.
func NewBulk(store Store) *Bulk {
	return &Bulk{store: store, nextID: 1, players: map[uuid.UUID]*bulkPlayer{}, chunk: 50_000}
}

func (k *Bulk) flushIfFull() error {
	if len(k.b.Ops) < k.chunk {
		return nil
	}
	return k.flush()
}

func (k *Bulk) flush() error {
	if len(k.b.Ops) == 0 {
		return nil
	}
	k.b.add(Op{Kind: OpMeta, Meta: MetaRow{NextListingID: k.nextID, FeeBalance: k.fee, Volume: k.volume, Sales: k.sales}})
	err := k.store.BulkLoad(&k.b)
	k.b.Ops = k.b.Ops[:0]
	return err
}

// AddPlayer adds a player with a balance in minor units.
func (k *Bulk) AddPlayer(p Player, balance Money) error {
	if p.ID == uuid.Nil || p.Name == "" {
		return fmt.Errorf("bulk: player needs an id and a name")
	}
	if k.players[p.ID] != nil {
		return fmt.Errorf("bulk: player %s added twice", p.ID)
	}
	if err := validateText("player name", p.Name, 64); err != nil {
		return err
	}
	for _, perm := range p.Permissions {
		if strings.Contains(perm, ",") {
			return fmt.Errorf("bulk: permission %q contains a comma", perm)
		}
	}
	bp := &bulkPlayer{row: PlayerRow{ID: p.ID, Name: p.Name, Perms: strings.Join(p.Permissions, ","), Balance: balance}}
	k.players[p.ID] = bp
	k.order = append(k.order, bp)
	return nil
}

// SetSlot puts an item into a player's inventory slot.
func (k *Bulk) SetSlot(player uuid.UUID, slot int, s ItemStack) error {
	bp := k.players[player]
	if bp == nil {
		return fmt.Errorf("bulk: unknown player %s", player)
	}
	if slot < 0 || slot >= InventorySize {
		return fmt.Errorf("bulk: slot %d outside 0..%d", slot, InventorySize-1)
	}
	it, err := k.item(s)
	if err != nil {
		return err
	}
	bp.inv[slot] = it
	return nil
}

func (k *Bulk) item(s ItemStack) (item, error) {
	if s.ID == uuid.Nil {
		s.ID = uuid.New()
	}
	return toItem(s)
}

// AddListing adds an active listing and returns its id.
func (k *Bulk) AddListing(seller uuid.UUID, s ItemStack, price Money, created, expires time.Time) (int, error) {
	if k.players[seller] == nil {
		return 0, fmt.Errorf("bulk: unknown seller %s", seller)
	}
	if price <= 0 {
		return 0, fmt.Errorf("bulk: price must be positive")
	}
	it, err := k.item(s)
	if err != nil {
		return 0, err
	}
	id := k.nextID
	k.nextID++
	r := &listingRecord{id: uint32(id), price: price, created: created.UnixMilli(), expires: expires.UnixMilli(), it: it}
	k.b.add(Op{Kind: OpPutListing, Listing: &ListingRow{ID: id, Rec: encodeListing(nil, seller, r)}})
	return int(id), k.flushIfFull()
}

// HistoricSale describes a past transaction to load.
type HistoricSale struct {
	Buyer, Seller uuid.UUID
	Item          ItemStack
	Price, Fee    Money
	State         State     // COMPLETED, FAILED or ROLLED_BACK
	ErrorCode     string    // for FAILED / ROLLED_BACK
	At            time.Time // when it was created; each later state follows 1 ms apart
	// ID is the transaction's id; uuid.Nil makes a time-ordered (v7) one
	// from At. A generator that wants reproducible data passes its own.
	ID uuid.UUID
}

// AddTransaction adds a past, terminal transaction. It consumes a listing id
// (the listing it sold no longer exists), so ids stay unique across listings
// and transactions.
func (k *Bulk) AddTransaction(h HistoricSale) (string, error) {
	if k.players[h.Buyer] == nil || k.players[h.Seller] == nil {
		return "", fmt.Errorf("bulk: unknown buyer or seller")
	}
	if h.Buyer == h.Seller {
		return "", fmt.Errorf("bulk: buyer and seller are the same player")
	}
	if h.Price <= 0 || h.Fee < 0 || h.Fee > h.Price {
		return "", fmt.Errorf("bulk: bad price %d / fee %d", h.Price, h.Fee)
	}
	it, err := k.item(h.Item)
	if err != nil {
		return "", err
	}
	var path []State
	switch h.State {
	case StateCompleted:
		path = []State{StateCreated, StateListingReserved, StateMoneyWithdrawn, StateSellerPaid, StateItemDelivered, StateCompleted}
	case StateFailed:
		path = []State{StateCreated, StateFailed}
	case StateRolledBack:
		path = []State{StateCreated, StateListingReserved, StateMoneyWithdrawn, StateRolledBack}
	default:
		return "", fmt.Errorf("bulk: historic transactions must be terminal, not %q", h.State)
	}
	var tl timeline
	at := h.At.UnixMilli()
	for i, st := range path {
		tl = append(tl, stamp{state: uint8(stateIndex(st)), at: at + int64(i)})
	}
	id := h.ID
	if id == uuid.Nil {
		// A v7 id: the sale's unix ms in the first 48 bits, random after.
		id = uuid.New()
		ms := uint64(h.At.UnixMilli())
		for i := 0; i < 6; i++ {
			id[i] = byte(ms >> (40 - 8*i))
		}
		id[6] = 0x70 | id[6]&0x0f
		id[8] = 0x80 | id[8]&0x3f
	}
	lid := k.nextID
	k.nextID++
	t := &transactionRecord{listing: uint32(lid), it: it, price: h.Price, fee: h.Fee, net: h.Price - h.Fee}
	if h.State == StateCompleted {
		k.volume += h.Price
		k.sales++
	}
	k.b.add(Op{Kind: OpPutTx, Tx: &TxRow{ID: id, State: h.State,
		Rec: encodeTx(nil, h.Buyer, h.Seller, t, tl, h.ErrorCode, false)}})
	return id.String(), k.flushIfFull()
}

// Fees adds to the fee account (the fees of historic sales), keeping money
// conserved across the load.
func (k *Bulk) Fees(m Money) { k.fee += m }

// Finish writes the players and what is left.
func (k *Bulk) Finish() error {
	for _, bp := range k.order {
		row := bp.row
		row.Inventory = encodeInventory(nil, &bp.inv)
		k.b.add(Op{Kind: OpPutPlayer, Player: &row})
	}
	k.order = nil
	k.b.add(Op{Kind: OpMeta, Meta: MetaRow{NextListingID: k.nextID, FeeBalance: k.fee, Volume: k.volume, Sales: k.sales}})
	err := k.store.BulkLoad(&k.b)
	k.b.Ops = k.b.Ops[:0]
	return err
}

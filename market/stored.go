package market

import (
	"slices"
	"sync"

	"github.com/google/uuid"

	"github.com/rynek/rynek/market/internal/item"
	"github.com/rynek/rynek/market/internal/record"
	"github.com/rynek/rynek/market/internal/search"
)

// The private records as market/internal/record stores them, and back. The
// records keep players by index and amounts as Money; the stored form names
// players by UUID and counts cents.

// stored is r's record, sold by seller.
func (r *listingRecord) stored(seller uuid.UUID) *record.Listing {
	return &record.Listing{ID: r.id, Seller: seller, Price: int64(r.price), Fee: int64(r.fee),
		Created: r.created, Expires: r.expires, Reserved: r.reserved, Item: r.it, Auction: r.auction}
}

// fromStored gives r what the stored record l holds: all but the seller's
// index (and the id, which the row has beside the record).
func (r *listingRecord) fromStored(l *record.Listing) {
	r.price, r.created, r.expires, r.reserved, r.it, r.fee = Money(l.Price), l.Created, l.Expires, l.Reserved, l.Item, Money(l.Fee)
	r.auction = l.Auction
}

// decodeListing fills r from a listing record (all but id and seller index)
// and returns the seller.
func decodeListing(b []byte, r *listingRecord) (uuid.UUID, error) {
	l, err := record.DecodeListing(b)
	if err != nil {
		return uuid.Nil, err
	}
	r.fromStored(&l)
	return l.Seller, nil
}

// listingRow is r as the store keeps it.
func (s *Service) listingRow(r *listingRecord) *ListingRow {
	return &ListingRow{ID: int64(r.id), Rec: record.EncodeListing(nil, r.stored(s.players[r.seller].id))}
}

// stored is t's record between buyer and seller, in timeline tl with
// errCode and toMailbox (which a write may give before memory has them).
func (t *transactionRecord) stored(buyer, seller uuid.UUID, tl record.Timeline, errCode string, toMailbox bool) *record.Transaction {
	return &record.Transaction{Listing: t.listing, Buyer: buyer, Seller: seller,
		Price: int64(t.price), Fee: int64(t.fee), Net: int64(t.net), ErrCode: errCode, ToMailbox: toMailbox,
		Rating: t.rating, Auction: t.auction, Escrowed: t.escrowed, Order: t.order, Timeline: tl, Item: t.it}
}

// fromStored gives t what the stored record x holds: all but id, state and
// the players' indexes.
func (t *transactionRecord) fromStored(x *record.Transaction) {
	t.listing, t.price, t.fee, t.net = x.Listing, Money(x.Price), Money(x.Fee), Money(x.Net)
	t.errCode, t.toMailbox, t.rating, t.tl, t.it = x.ErrCode, x.ToMailbox, x.Rating, x.Timeline, x.Item
	t.auction, t.escrowed, t.order = x.Auction, x.Escrowed, x.Order
	t.created = x.Timeline[0].At
}

// decodeTx fills t from a transaction record (all but id, state and player
// indexes) and returns the buyer and seller.
func decodeTx(b []byte, t *transactionRecord) (buyer, seller uuid.UUID, err error) {
	x, err := record.DecodeTransaction(b)
	if err != nil {
		return uuid.Nil, uuid.Nil, err
	}
	t.fromStored(&x)
	return x.Buyer, x.Seller, nil
}

// txRow is t as the store keeps it, in state st with timeline tl.
func (s *Service) txRow(t *transactionRecord, st State, tl record.Timeline, errCode string, toMailbox bool) *TxRow {
	return &TxRow{ID: t.id, State: st,
		Rec: record.EncodeTransaction(nil, t.stored(s.players[t.buyer].id, s.players[t.seller].id, tl, errCode, toMailbox))}
}

// transactionBody is the log entry of t entering the last state of tl. For
// a delivery (or its undoing) to says where the item went (or came back
// from); restored is a listing a compensation put back.
func (s *Service) transactionBody(t *transactionRecord, tl record.Timeline, errCode string, toMailbox bool, to *record.Destination, restored *listingRecord, refunded uuid.UUID) []byte {
	buyer, seller := s.players[t.buyer], s.players[t.seller]
	e := record.TransactionEntry{ID: t.id, Transaction: *t.stored(buyer.id, seller.id, tl, errCode, toMailbox),
		BuyerName: buyer.name, SellerName: seller.name, To: to, Refunded: refunded}
	if restored != nil {
		e.Restored = restored.stored(seller.id)
	}
	return record.EncodeTransactionEntry(nil, &e)
}

// stored is x's record.
func (x *playerExtra) stored() *record.PlayerData {
	if x == nil {
		return nil
	}
	// The hits are the record's own (the encoder only reads them).
	d := &record.PlayerData{ReadAt: x.readAt, Favorites: make([]uint32, 0, len(x.favorites)),
		Alerts: make([]record.Alert, 0, len(x.alerts)), Hits: x.hits, Outbids: make([]record.Outbid, 0, len(x.outbids))}
	d.Favorites = append(d.Favorites, x.favorites...)
	for _, a := range x.alerts {
		d.Alerts = append(d.Alerts, record.Alert{ID: a.id, Query: a.query, MaxUnit: int64(a.maxUnit), Created: a.created})
	}
	for _, o := range x.outbids {
		d.Outbids = append(d.Outbids, record.Outbid{Listing: o.listing, At: o.at, Bid: int64(o.bid), Refunded: int64(o.refunded),
			BoughtNow: o.boughtNow, TakenDown: o.takenDown, Amount: o.amount, Material: o.material})
	}
	return d
}

// encodeExtra is x's blob.
func encodeExtra(x *playerExtra) []byte {
	return record.EncodePlayerData(x.stored())
}

// dataBlob is a blob of a player's row, the data or the inventory
// (inventoryBlob), encoded when it is first asked for.
//
// Why: a new listing writes the data of every player whose alert it fires,
// each with up to MaxAlertHits hits (some 10 KB). In BenchmarkServerTick the
// sells that fired many players' alerts took the main thread 0.6-2 ms each,
// its slowest ticks, and encoding the blobs was half of the alerts' part
// (perf). The main thread now fixes what a blob holds (blobOf), and the
// committer encodes it before the batch goes to the store
// (Batch.encodeData). A blob read from the store is made encoded
// (storedBlob).
type dataBlob struct {
	once   sync.Once
	encode func() []byte // nil once it has run, or for a stored blob
	b      []byte
}

// storedBlob is a blob as the store holds it.
func storedBlob(b []byte) *dataBlob { return &dataBlob{b: b} }

// blobOf is x's blob, to be encoded later. The favourites that are live
// now are copied, which is how a gone listing leaves the stored list: the
// list loses a listing in place as it leaves (forgetFavoritesLocked).
// Nothing changes the rest of x in place; a change makes a new playerExtra.
func (s *Service) blobOf(x *playerExtra) *dataBlob {
	if x != nil {
		c := *x
		c.favorites = slices.DeleteFunc(slices.Clone(x.favorites), func(id uint32) bool { return !s.liveListing(id) })
		x = &c
	}
	return &dataBlob{encode: func() []byte {
		if dataEncoded != nil {
			dataEncoded("data")
		}
		return encodeExtra(x)
	}}
}

// dataEncoded, when set (by tests), runs as a dataBlob is encoded, told
// what it holds ("data", "inventory").
var dataEncoded func(what string)

// inventoryBlob is inv's blob (item.EncodeInventory), to be encoded later,
// of a copy: the main thread goes on changing the inventory.
//
// Why: a change of a player's inventory writes it whole, each of its
// thirty-six slots encoded, and a purchase writes the buyer's twice. That
// was a tenth of the main thread's CPU in the serve loop (perf, 40 s
// sqlite tick run); the copy is a memmove.
func inventoryBlob(inv *item.Inventory) *dataBlob {
	c := *inv
	return &dataBlob{encode: func() []byte {
		if dataEncoded != nil {
			dataEncoded("inventory")
		}
		// Never nil, which would mean "unchanged": an empty inventory
		// encodes to no bytes.
		return item.EncodeInventory(make([]byte, 0, 64), &c)
	}}
}

// encodeData sets the players' data blobs and inventories of b's ops, and
// those they expect, from the dataBlobs that stand for them.
func (b *Batch) encodeData() {
	for i := range b.Ops {
		op := &b.Ops[i]
		if op.data != nil {
			op.Player.Extra, op.ExpectExtra = op.data.bytes(), nonNilBlob(op.expect.bytes())
		}
		if op.inv != nil {
			op.Player.Inventory, op.Expect = op.inv.bytes(), op.invExpect.bytes()
		}
	}
}

// bytes is the blob, encoded on the first call; nil for none.
func (d *dataBlob) bytes() []byte {
	if d == nil {
		return nil
	}
	d.once.Do(func() {
		if d.encode != nil {
			d.b, d.encode = d.encode(), nil
		}
	})
	return d.b
}

// decodeExtra reads a player's data blob; the empty blob is no data.
func decodeExtra(b []byte) (*playerExtra, error) {
	d, err := record.DecodePlayerData(b)
	if d == nil || err != nil {
		return nil, err
	}
	x := &playerExtra{favorites: d.Favorites, readAt: d.ReadAt}
	for _, a := range d.Alerts {
		x.alerts = append(x.alerts, alertRecord{id: a.ID, query: a.Query, maxUnit: Money(a.MaxUnit), created: a.Created,
			words: search.ParseText(a.Query).Words})
	}
	x.hits = d.Hits
	for _, o := range d.Outbids {
		x.outbids = append(x.outbids, outbidNotice{listing: o.Listing, at: o.At, bid: Money(o.Bid), refunded: Money(o.Refunded),
			boughtNow: o.BoughtNow, takenDown: o.TakenDown, amount: o.Amount, material: o.Material})
	}
	return x, nil
}

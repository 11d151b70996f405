package market

import (
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/internal/record"
)

// BulkOrder is an open buy order to load: Filled of Amount items bought
// already, the rest wanted at up to UnitPrice each.
type BulkOrder struct {
	Buyer            uuid.UUID
	Material         string // a catalogue key, e.g. "OAK_LOG"
	Amount, Filled   int
	UnitPrice        Money
	Created, Expires time.Time
}

// AddOrder adds an open buy order and returns its id (from the listings'
// ids, as a placed order's is). Its escrow, the unit price for each item it
// still wants, comes into the market with the load (the opening account),
// as an auction's leading bid does; the items it bought are the source's
// past, not loaded. A load does not match: an order that crosses a listing
// is filled by the market's timer once it runs, so a source that means its
// orders to rest keeps each below its material's cheapest listing.
func (k *Bulk) AddOrder(o BulkOrder) (int, error) {
	if k.failed != nil {
		return 0, k.failed
	}
	if !k.known(o.Buyer) {
		return 0, fmt.Errorf("bulk: unknown buyer %s", o.Buyer)
	}
	mat, ok := catalog.MaterialID(strings.TrimSpace(o.Material))
	switch {
	case !ok:
		return 0, fmt.Errorf("bulk: an order of unknown material %q", o.Material)
	case o.Amount < 1 || o.Amount > record.MaxOrderAmount:
		return 0, fmt.Errorf("bulk: an order buys 1 to %d items, not %d", record.MaxOrderAmount, o.Amount)
	case o.Filled < 0 || o.Filled >= o.Amount:
		return 0, fmt.Errorf("bulk: an open order of %d items has bought 0 to %d, not %d", o.Amount, o.Amount-1, o.Filled)
	case o.UnitPrice <= 0:
		return 0, fmt.Errorf("bulk: an order's unit price must be positive, not %s", FormatMoney(o.UnitPrice))
	case !o.Expires.After(o.Created):
		return 0, fmt.Errorf("bulk: an order expires after it is placed")
	}
	id := k.nextID
	k.nextID++
	k.handedOut = true
	escrow := o.UnitPrice * Money(o.Amount-o.Filled)
	r := &orderRecord{id: uint32(id), mat: mat, amount: uint32(o.Amount), filled: uint32(o.Filled), limit: o.UnitPrice,
		escrow: escrow, created: o.Created.UnixMilli(), expires: o.Expires.UnixMilli()}
	k.b.add(Op{Kind: OpAddOrder, Order: &OrderRow{ID: id, Rec: record.EncodeOrder(nil, r.stored(o.Buyer))}})
	k.opening.Money += escrow // held in the escrow
	k.opening.LoadedThrough = max(k.opening.LoadedThrough, r.created)
	k.summary.Orders++
	return int(id), k.flushIfFull()
}

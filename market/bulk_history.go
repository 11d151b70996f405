package market

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/rynek/rynek/market/internal/record"
)

// A bulk load's history: the finished transactions of the market a load
// brings, each as the saga would have left it.

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
	// ListingID is the id of the listing it sold, as the source knew it;
	// 0 gives it a new one.
	ListingID int
	// Rating is the buyer's rating of a COMPLETED sale, 1 to 5; 0 none.
	Rating int
	// Refunded, for a ROLLED_BACK sale, is when an admin refunded it
	// (Refund): it is loaded as a refund leaves it, every state to
	// COMPLETED and then ROLLED_BACK at this time, with the refund's error
	// code (ErrorCode must be empty). ItemReturned says whether its item
	// went back to the seller; without it the code ends ":MONEY_ONLY".
	Refunded     time.Time
	ItemReturned bool
}

// AddTransaction adds a past, terminal transaction. Without a ListingID it
// consumes a listing id (the listing it sold no longer exists), so ids stay
// unique across listings and transactions.
func (k *Bulk) AddTransaction(h HistoricSale) (string, error) {
	if k.failed != nil {
		return "", k.failed
	}
	if !k.known(h.Buyer) || !k.known(h.Seller) {
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
		if !h.Refunded.IsZero() {
			path = []State{StateCreated, StateListingReserved, StateMoneyWithdrawn, StateSellerPaid, StateItemDelivered, StateCompleted, StateRolledBack}
		}
	default:
		return "", fmt.Errorf("bulk: historic transactions must be terminal, not %q", h.State)
	}
	var tl record.Timeline
	at := h.At.UnixMilli()
	for i, st := range path {
		tl = append(tl, record.Stamp{State: uint8(stateIndex(st)), At: at + int64(i)})
	}
	if h.ItemReturned && h.Refunded.IsZero() {
		return "", fmt.Errorf("bulk: an item returned by a sale that was not refunded")
	}
	if h.Rating < 0 || h.Rating > 5 || h.Rating > 0 && h.State != StateCompleted {
		return "", fmt.Errorf("bulk: a rating of %d stars on a %s transaction: ratings are 1 to 5, of COMPLETED sales", h.Rating, h.State)
	}
	if !h.Refunded.IsZero() {
		refunded := h.Refunded.UnixMilli()
		switch {
		case h.State != StateRolledBack:
			return "", fmt.Errorf("bulk: a %s transaction refunded at %v: a refund leaves a sale ROLLED_BACK", h.State, h.Refunded)
		case h.ErrorCode != "":
			return "", fmt.Errorf("bulk: a refunded sale with error code %q: the refund writes its own", h.ErrorCode)
		case refunded <= tl[len(tl)-2].At:
			return "", fmt.Errorf("bulk: a sale of %v refunded at %v, before it completed", h.At, h.Refunded)
		}
		tl[len(tl)-1].At = refunded
		h.ErrorCode = refundPrefix + strconv.FormatInt(refunded, 10)
		if !h.ItemReturned {
			h.ErrorCode += refundMoneyOnly
		}
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
	if k.existing.transactions[id] {
		k.summary.SkippedTransactions++
		return id.String(), nil
	}
	lid := int64(h.ListingID)
	switch {
	case lid == 0:
		lid = k.nextID
		k.nextID++
		k.handedOut = true
	case lid < 0 || lid > math.MaxInt32:
		return "", fmt.Errorf("bulk: listing id %d outside 1..%d", lid, math.MaxInt32)
	default:
		k.nextID = max(k.nextID, lid+1)
	}
	t := &transactionRecord{listing: uint32(lid), it: it, price: h.Price, fee: h.Fee, net: h.Price - h.Fee, rating: uint8(h.Rating)}
	if h.State == StateCompleted {
		k.volume += h.Price
		k.sales++
	}
	k.b.add(Op{Kind: OpPutTx, Tx: &TxRow{ID: id, State: h.State,
		Rec: record.EncodeTransaction(nil, t.stored(h.Buyer, h.Seller, tl, h.ErrorCode, false))}})
	k.opening.LoadedThrough = max(k.opening.LoadedThrough, tl[len(tl)-1].At)
	k.summary.Transactions++
	return id.String(), k.flushIfFull()
}

// Fees adds to the fee account (the fees of historic sales), keeping money
// conserved across the load.
func (k *Bulk) Fees(m Money) { k.fee += m }

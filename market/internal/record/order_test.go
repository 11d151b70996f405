package record

import (
	"bytes"
	"testing"

	"github.com/google/uuid"
)

func sampleOrder() Order {
	return Order{ID: 3001, Buyer: uuid.MustParse("0190a6e0-0000-7000-8000-000000000001"), Material: 17, Amount: 500,
		Filled: 64, Limit: 125, Escrow: 500*125 - 64*120, Fee: 300, Created: 1_790_000_000_000, Expires: 1_790_086_400_000}
}

func TestOrderRoundTrip(t *testing.T) {
	o := sampleOrder()
	got, err := DecodeOrder(EncodeOrder(nil, &o))
	o.ID = 0 // the row's key, not the record's
	if err != nil || got != o {
		t.Fatalf("DecodeOrder = %+v, %v; want %+v", got, err, o)
	}
	filled := sampleOrder()
	filled.Filled, filled.Escrow = filled.Amount, 0
	if _, err := DecodeOrder(EncodeOrder(nil, &filled)); err == nil {
		t.Error("an open order with every item bought decoded")
	}
	filled.State, filled.Closed = OrderStateFilled, filled.Created+5
	if got, err := DecodeOrder(EncodeOrder(nil, &filled)); err != nil || got.State != OrderStateFilled || got.Closed != filled.Closed {
		t.Errorf("a filled order: %+v, %v", got, err)
	}
	filled.State = OrderStateCancelled // cancelled, yet every item bought
	if _, err := DecodeOrder(EncodeOrder(nil, &filled)); err == nil {
		t.Error("a cancelled order with every item bought decoded")
	}
	held := sampleOrder()
	held.State, held.Closed = OrderStateExpired, held.Created+5
	if _, err := DecodeOrder(EncodeOrder(nil, &held)); err == nil {
		t.Error("a closed order still holding escrow decoded")
	}
	short := sampleOrder()
	short.Escrow = short.Limit*int64(short.Remaining()) - 1
	if _, err := DecodeOrder(EncodeOrder(nil, &short)); err == nil {
		t.Error("an order whose escrow cannot pay for what it still wants decoded")
	}
}

func TestOrderEntriesRoundTrip(t *testing.T) {
	o := sampleOrder()
	placed := OrderPlaced{Order: o, BuyerName: "Kowalski"}
	if got, err := DecodeOrderPlaced(EncodeOrderPlaced(nil, &placed)); err != nil || got != placed {
		t.Errorf("DecodeOrderPlaced = %+v, %v", got, err)
	}
	last := o
	last.Filled, last.Escrow, last.State, last.Closed = last.Amount, 0, OrderStateFilled, o.Created+9
	fill := OrderFilled{Order: last, BuyerName: "Kowalski", Seller: uuid.New(), SellerName: "Nowak", Amount: 20, Price: 2400,
		Transaction: uuid.New(), Listing: 77, ListingLeft: 12}
	if got, err := DecodeOrderFilled(EncodeOrderFilled(nil, &fill)); err != nil || got != fill {
		t.Errorf("DecodeOrderFilled = %+v, %v; want %+v", got, err, fill)
	}
	closed := OrderClosed{Order: last, BuyerName: "Kowalski", Refund: 436}
	if got, err := DecodeOrderClosed(EncodeOrderClosed(nil, &closed)); err != nil || got != closed {
		t.Errorf("DecodeOrderClosed = %+v, %v", got, err)
	}
	if _, err := DecodeOrderClosed(EncodeOrderClosed(nil, &OrderClosed{Order: o})); err == nil {
		t.Error("a closing entry of an open order decoded")
	}
}

func TestTransactionOfAnOrder(t *testing.T) {
	tx := Transaction{Listing: 42, Buyer: uuid.New(), Seller: uuid.New(), Price: 2400, Fee: 120, Net: 2280,
		Escrowed: true, Order: 3001, Item: stack(t, "OAK_LOG", 20, ""), Timeline: Timeline{{State: 0, At: 1}}}
	got, err := DecodeTransaction(EncodeTransaction(nil, &tx))
	if err != nil || got.Order != 3001 || !got.Escrowed || got.Auction {
		t.Fatalf("DecodeTransaction = %+v, %v", got, err)
	}
	tx.Escrowed = false // an order pays from its escrow, always
	if _, err := DecodeTransaction(EncodeTransaction(nil, &tx)); err == nil {
		t.Error("an order's purchase not paid from escrow decoded")
	}
}

// FuzzDecodeOrder: what DecodeOrder accepts re-encodes to the same bytes.
func FuzzDecodeOrder(f *testing.F) {
	o := sampleOrder()
	f.Add(EncodeOrder(nil, &o))
	f.Add([]byte{Version})
	f.Fuzz(func(t *testing.T, b []byte) {
		o, err := DecodeOrder(b)
		if err != nil {
			return
		}
		if !bytes.Equal(EncodeOrder(nil, &o), b) {
			t.Fatal("decoder accepted a non-canonical order")
		}
	})
}

// FuzzDecodeOrderEntries: what the order entries' decoders accept
// re-encodes to the same bytes.
func FuzzDecodeOrderEntries(f *testing.F) {
	o := sampleOrder()
	f.Add(EncodeOrderPlaced(nil, &OrderPlaced{Order: o, BuyerName: "K"}))
	f.Add(EncodeOrderFilled(nil, &OrderFilled{Order: o, Seller: uuid.New(), Amount: 3, Price: 9, Transaction: uuid.New(), Listing: 5, ListingLeft: 1}))
	gone := o
	gone.Escrow, gone.State, gone.Closed = 0, OrderStateExpired, o.Expires
	f.Add(EncodeOrderClosed(nil, &OrderClosed{Order: gone, Refund: o.Escrow}))
	f.Fuzz(func(t *testing.T, b []byte) {
		if e, err := DecodeOrderPlaced(b); err == nil && !bytes.Equal(EncodeOrderPlaced(nil, &e), b) {
			t.Fatal("non-canonical OrderPlaced accepted")
		}
		if e, err := DecodeOrderFilled(b); err == nil && !bytes.Equal(EncodeOrderFilled(nil, &e), b) {
			t.Fatal("non-canonical OrderFilled accepted")
		}
		if e, err := DecodeOrderClosed(b); err == nil && !bytes.Equal(EncodeOrderClosed(nil, &e), b) {
			t.Fatal("non-canonical OrderClosed accepted")
		}
	})
}

package record

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/google/uuid"
)

// TestAuctionRecords: an auction's record round-trips before and after its
// first bid, and the decoder refuses every auction EncodeListing would not
// write.
func TestAuctionRecords(t *testing.T) {
	leader := uuid.New()
	base := func(a Auction) *Listing {
		return &Listing{Seller: uuid.New(), Price: 10_00, Created: 1, Expires: 86_400_001, Fee: 50,
			Item: stack(t, "DIAMOND_SWORD", 1, ""), Auction: &a}
	}
	for name, l := range map[string]*Listing{
		"no bid yet":     base(Auction{IncrementAbs: 1_00, IncrementBP: 500, AntiSnipe: 60_000}),
		"with a buy-now": base(Auction{BuyNow: 50_00, IncrementAbs: 1_00}),
		"after three bids": base(Auction{IncrementBP: 500, Bids: 3, Leader: leader, Bid: 12_50, History: []Bid{
			{Bidder: uuid.New(), Amount: 10_00, At: 5}, {Bidder: leader, Amount: 11_00, At: 5}, {Bidder: leader, Amount: 12_50, At: 4}}}),
		"reserved at the end": {Seller: uuid.New(), Price: 1_00, Expires: 5, Reserved: uuid.New(), Item: stack(t, "DIRT", 64, ""),
			Auction: &Auction{Bids: 1, Leader: leader, Bid: 1_00, History: []Bid{{Bidder: leader, Amount: 1_00, At: 1}}}},
	} {
		blob := EncodeListing(nil, l)
		got, err := DecodeListing(blob)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got.Auction, l.Auction) || !bytes.Equal(EncodeListing(nil, &got), blob) {
			t.Errorf("%s: decoded %+v, want %+v", name, *got.Auction, *l.Auction)
		}
	}
	for name, a := range map[string]Auction{
		"buy-now at the starting bid": {BuyNow: 10_00},
		"buy-now below it":            {BuyNow: 9_99},
		"a negative buy-now":          {BuyNow: -1},
		"a negative increment":        {IncrementAbs: -1},
		"a percent past the bound":    {IncrementBP: MaxIncrementBP + 1},
		"a negative anti-snipe":       {AntiSnipe: -1},
		"bids without a history":      {Bids: 1, Leader: leader, Bid: 10_00},
		"a bid below the start":       {Bids: 1, History: []Bid{{Bidder: leader, Amount: 9_99}}},
		"a bid by nobody":             {Bids: 1, History: []Bid{{Amount: 10_00}}},
		"a bid not above the last":    {Bids: 2, History: []Bid{{Bidder: leader, Amount: 10_00}, {Bidder: leader, Amount: 10_00}}},
		"fewer bids kept than placed": {Bids: 3, History: []Bid{{Bidder: leader, Amount: 10_00}, {Bidder: leader, Amount: 11_00}}},
	} {
		if _, err := DecodeListing(EncodeListing(nil, base(a))); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}

// TestMinimumBid: the starting bid first, then the leading bid plus the
// larger increment, the percent rounded up, never less than a cent.
func TestMinimumBid(t *testing.T) {
	for _, c := range []struct {
		a    Auction
		want int64
	}{
		{Auction{IncrementAbs: 1_00, IncrementBP: 500}, 10_00},
		{Auction{IncrementAbs: 1_00, IncrementBP: 500, Bids: 1, Bid: 10_00}, 11_00},
		{Auction{IncrementAbs: 1_00, IncrementBP: 500, Bids: 2, Bid: 100_00}, 105_00},
		{Auction{IncrementBP: 500, Bids: 1, Bid: 10_01}, 10_52},
		{Auction{Bids: 1, Bid: 10_00}, 10_01},
	} {
		if got := c.a.MinimumBid(10_00); got != c.want {
			t.Errorf("%+v: minimum %d, want %d", c.a, got, c.want)
		}
	}
}

// TestBidHistoryKeepsTheNewest: an auction's record keeps its newest
// MaxBidHistory bids, and no more or fewer.
func TestBidHistoryKeepsTheNewest(t *testing.T) {
	history := func(n int) []Bid {
		h := make([]Bid, n)
		for i := range h {
			h[i] = Bid{Bidder: uuid.New(), Amount: int64(10_00 + i), At: int64(i)}
		}
		return h
	}
	l := &Listing{Seller: uuid.New(), Price: 10_00, Expires: 1, Item: stack(t, "DIRT", 1, "")}
	for _, c := range []struct {
		bids, kept int
		ok         bool
	}{{150, MaxBidHistory, true}, {150, MaxBidHistory + 1, false}, {150, MaxBidHistory - 1, false}, {7, 7, true}} {
		h := history(c.kept)
		l.Auction = &Auction{Bids: int64(c.bids), History: h, Leader: h[len(h)-1].Bidder, Bid: h[len(h)-1].Amount}
		got, err := DecodeListing(EncodeListing(nil, l))
		if (err == nil) != c.ok {
			t.Errorf("%d bids, %d kept: %v", c.bids, c.kept, err)
		}
		if err == nil && (got.Auction.Leader != l.Auction.Leader || got.Auction.Bid != l.Auction.Bid) {
			t.Errorf("%d bids, %d kept: the leader %v with %d, want %v with %d", c.bids, c.kept,
				got.Auction.Leader, got.Auction.Bid, l.Auction.Leader, l.Auction.Bid)
		}
	}
}

// TestTransactionEntryNamesTheRefundedLeader: a buy-now's reservation entry
// names the leader whose bid went back, so that a follower reads their row;
// entries without one decode as before, and a nil leader is not written.
func TestTransactionEntryNamesTheRefundedLeader(t *testing.T) {
	leader := uuid.New()
	tx := Transaction{Listing: 3, Buyer: uuid.New(), Seller: uuid.New(), Price: 40_00, Net: 40_00,
		Timeline: Timeline{{State: 0, At: 1}, {State: 1, At: 2}}, Item: stack(t, "DIRT", 1, ""), Auction: true}
	for _, e := range []TransactionEntry{
		{ID: uuid.New(), Transaction: tx, Refunded: leader},
		{ID: uuid.New(), Transaction: tx, To: &Destination{Slot: 4}, Refunded: leader},
		{ID: uuid.New(), Transaction: tx},
	} {
		got, err := DecodeTransactionEntry(EncodeTransactionEntry(nil, &e))
		if err != nil || got.Refunded != e.Refunded || (got.To == nil) != (e.To == nil) {
			t.Fatalf("%+v: refunded %v to %v (%v)", e.Refunded, got.Refunded, got.To, err)
		}
	}
	bad := EncodeTransactionEntry(nil, &TransactionEntry{ID: uuid.New(), Transaction: tx, Refunded: leader})
	i := bytes.Index(bad, leader[:])
	nilLeader := append(append(append([]byte{}, bad[:i]...), make([]byte, 16)...), bad[i+16:]...)
	if _, err := DecodeTransactionEntry(nilLeader); err == nil {
		t.Fatal("an entry naming the nil player as the refunded leader decoded")
	}
}

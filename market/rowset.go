package market

import (
	"slices"

	"github.com/rynek/rynek/market/internal/item"
)

// The rows the follower reads of what other instances changed (follow.go),
// as one ReadRows hands them over, with each player's blobs decoded on the
// follower's goroutine.

// rowSet is the rows of one ReadRows, kept past the call.
type rowSet struct {
	q       RowQuery
	meta    MetaRow
	players []PlayerRow
	// decoded holds each player row's inventory and market data, decoded
	// on the follower's goroutine as the rows are read: the main thread
	// only installs them. Decoding them under the market's lock was half
	// of Follow's time on the main thread, the other instance acting at
	// 100 changes a second (BenchmarkServerTick/sqlite-beside).
	decoded  []decodedPlayer
	mail     []MailRow
	listings []ListingRow
	txs      []TxRow
	orders   []OrderRow
}

func (r *rowSet) Meta(m MetaRow) error { r.meta = m; return nil }
func (r *rowSet) Player(p PlayerRow) error {
	p.Inventory, p.Extra = slices.Clone(p.Inventory), slices.Clone(p.Extra)
	r.players = append(r.players, p)
	r.decoded = append(r.decoded, decodePlayer(p))
	return nil
}

// decodedPlayer is a player row's inventory and market data decoded, or
// why they could not be.
type decodedPlayer struct {
	inv      item.Inventory
	invErr   error
	extra    *playerExtra
	extraErr error
}

// decodePlayer decodes row's blobs. Any goroutine: it reads row only.
func decodePlayer(row PlayerRow) decodedPlayer {
	var d decodedPlayer
	d.inv, d.invErr = item.DecodeInventory(row.Inventory)
	d.extra, d.extraErr = decodeExtra(row.Extra)
	return d
}
func (r *rowSet) Mail(m MailRow) error {
	m.Item = slices.Clone(m.Item)
	r.mail = append(r.mail, m)
	return nil
}
func (r *rowSet) Listing(l ListingRow) error {
	l.Rec = slices.Clone(l.Rec)
	r.listings = append(r.listings, l)
	return nil
}
func (r *rowSet) Order(o OrderRow) error {
	o.Rec = slices.Clone(o.Rec)
	r.orders = append(r.orders, o)
	return nil
}
func (r *rowSet) Transaction(t TxRow) error {
	t.Rec = slices.Clone(t.Rec)
	r.txs = append(r.txs, t)
	return nil
}

package storetest

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
)

// Model is the reference: what each op means, in a few lines per op.
type Model struct {
	meta      market.MetaRow
	players   map[uuid.UUID]market.PlayerRow
	mail      map[uuid.UUID]market.MailRow
	listings  map[int64][]byte
	txs       map[uuid.UUID]market.TxRow
	events    []market.EventRow
	published uint64
}

// NewModel returns an empty market as a new store holds it.
func NewModel() *Model {
	return &Model{meta: market.MetaRow{NextListingID: 1, HasOpening: true}, players: map[uuid.UUID]market.PlayerRow{},
		mail: map[uuid.UUID]market.MailRow{}, listings: map[int64][]byte{}, txs: map[uuid.UUID]market.TxRow{}}
}

// errDuplicate is the model's refusal of an insert whose key exists; a
// store refuses it with its own constraint error.
var errDuplicate = errors.New("duplicate key")

func (m *Model) clone() *Model {
	c := *m
	c.players = cloneMap(m.players)
	c.mail = cloneMap(m.mail)
	c.listings = cloneMap(m.listings)
	c.txs = cloneMap(m.txs)
	c.events = append([]market.EventRow(nil), m.events...)
	return &c
}

func cloneMap[K comparable, V any](m map[K]V) map[K]V {
	c := make(map[K]V, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// Commit applies b to a copy and keeps the copy only if every op applied.
func (m *Model) Commit(b *market.Batch) error {
	last := uint64(0)
	if n := len(m.events); n > 0 {
		last = m.events[n-1].Seq
	}
	if b.Published > last {
		return fmt.Errorf("cannot mark event %d as delivered: the newest event is %d", b.Published, last)
	}
	next := m.clone()
	for i := range b.Ops {
		if err := next.apply(&b.Ops[i]); err != nil {
			return err
		}
	}
	for i := range b.Events {
		e := b.Events[i]
		e.Seq = last + uint64(i) + 1
		e.Body = append([]byte(nil), e.Body...)
		next.events = append(next.events, e)
	}
	next.published = max(next.published, b.Published)
	*m = *next
	for i := range b.Events {
		b.Events[i].Seq = last + uint64(i) + 1
	}
	return nil
}

func (m *Model) apply(op *market.Op) error {
	switch op.Kind {
	case market.OpAddPlayer:
		if _, ok := m.players[op.Player.ID]; ok {
			return errDuplicate
		}
		p := *op.Player
		p.Booked = p.Balance // the balance is booked as it is set
		m.players[p.ID] = p
	case market.OpPlayerState:
		p, ok := m.players[op.Player.ID]
		if !ok || op.Delta < 0 && p.Balance+op.Delta < 0 || op.Player.Inventory != nil && !bytes.Equal(p.Inventory, op.Expect) ||
			op.Player.Extra != nil && !bytes.Equal(p.Extra, op.ExpectExtra) {
			return market.ErrConflict
		}
		p.Balance += op.Delta
		p.Booked += op.Delta // booked as it moves
		p.LastSell = max(p.LastSell, op.Player.LastSell)
		if op.Player.Inventory != nil {
			p.Inventory = op.Player.Inventory
		}
		if op.Player.Extra != nil {
			p.Extra = op.Player.Extra
		}
		p.Version++
		m.players[p.ID] = p
		op.Player.Balance, op.Player.Version = p.Balance, p.Version
	case market.OpPutMail:
		if _, ok := m.mail[op.Mail.ID]; ok {
			return errDuplicate
		}
		m.mail[op.Mail.ID] = *op.Mail
	case market.OpDelMail:
		if _, ok := m.mail[op.Mail.ID]; !ok {
			return market.ErrConflict
		}
		delete(m.mail, op.Mail.ID)
	case market.OpAddListing:
		if _, ok := m.listings[op.Listing.ID]; ok {
			return errDuplicate
		}
		m.listings[op.Listing.ID] = op.Listing.Rec
	case market.OpListingState:
		if rec, ok := m.listings[op.Listing.ID]; !ok || !bytes.Equal(rec, op.Expect) {
			return market.ErrConflict
		}
		m.listings[op.Listing.ID] = op.Listing.Rec
	case market.OpDelListing:
		if rec, ok := m.listings[op.Int]; !ok || !bytes.Equal(rec, op.Expect) {
			return market.ErrConflict
		}
		delete(m.listings, op.Int)
	case market.OpPutTx:
		if _, ok := m.txs[op.Tx.ID]; ok {
			return errDuplicate
		}
		m.txs[op.Tx.ID] = *op.Tx
	case market.OpTxState:
		t, ok := m.txs[op.Tx.ID]
		if !ok || t.State != op.ExpectState || op.Expect != nil && !bytes.Equal(t.Rec, op.Expect) {
			return market.ErrConflict
		}
		m.txs[t.ID] = *op.Tx
	case market.OpCounters:
		m.meta.FeeBalance += op.Meta.FeeBalance
		m.meta.Volume += op.Meta.Volume
		m.meta.Sales += op.Meta.Sales
		op.Meta.FeeBalance, op.Meta.Volume, op.Meta.Sales = m.meta.FeeBalance, m.meta.Volume, m.meta.Sales
	case market.OpListingIDs:
		if m.meta.NextListingID == op.Int {
			m.meta.NextListingID = op.Meta.NextListingID
		}
	case market.OpIssuance:
		i, add := &m.meta.Issuance, op.Meta.Issuance
		i.MoneyIn += add.MoneyIn
		i.MoneyOut += add.MoneyOut
		i.ItemsIn += add.ItemsIn
		i.ItemsOut += add.ItemsOut
		op.Meta.Issuance = *i
	case market.OpLoaded:
		if m.meta.HasOpening {
			o, add := &m.meta.Opening, op.Meta.Opening
			o.Money += add.Money
			o.Items += add.Items
			o.LoadedThrough = max(o.LoadedThrough, add.LoadedThrough)
		}
	case market.OpRecordOpening:
		if !m.meta.HasOpening {
			m.meta.Opening, m.meta.Trimmed, m.meta.TrimmedAt, m.meta.HasOpening = op.Meta.Opening, op.Meta.Trimmed, op.Meta.TrimmedAt, true
		}
	case market.OpPlayerProfile:
		p, ok := m.players[op.Player.ID]
		if !ok || p.Version != op.Int {
			return market.ErrConflict
		}
		p.Name, p.Perms = op.Player.Name, op.Player.Perms
		p.Version++
		m.players[p.ID] = p
		op.Player.Version = p.Version
	default:
		return fmt.Errorf("unknown op kind %d", op.Kind)
	}
	return nil
}

// ReserveListingIDs moves the next listing id n ahead and returns where it
// was.
func (m *Model) ReserveListingIDs(n int) int64 {
	first := m.meta.NextListingID
	m.meta.NextListingID += int64(n)
	return first
}

func (m *Model) dump() Dump {
	var d Dump
	x := dumper{&d}
	d.Meta = m.meta
	for _, p := range m.players {
		x.Player(p)
	}
	for _, r := range m.mail {
		x.Mail(r)
	}
	for id, rec := range m.listings {
		x.Listing(market.ListingRow{ID: id, Rec: rec})
	}
	for _, t := range m.txs {
		x.Transaction(t)
	}
	for _, e := range m.events {
		d.Events = append(d.Events, eventString(e))
	}
	d.Published = m.published
	d.sort()
	return d
}

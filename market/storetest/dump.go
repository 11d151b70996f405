package storetest

import (
	"fmt"
	"sort"
	"testing"

	"github.com/rynek/rynek/market"
)

// Dump is every row and log entry a store holds, in a comparable form.
type Dump struct {
	Meta      market.MetaRow
	Players   []string
	Mail      []string
	Listings  []string
	Txs       []string
	Orders    []string
	Events    []string
	Published uint64
}

func eventString(e market.EventRow) string {
	return fmt.Sprintf("%d %s %d %x", e.Seq, e.Kind, e.At, e.Body)
}

func (d *Dump) sort() {
	for _, s := range [][]string{d.Players, d.Mail, d.Listings, d.Txs, d.Orders} {
		sort.Strings(s)
	}
}

type dumper struct{ d *Dump }

func (x dumper) Meta(m market.MetaRow) error { x.d.Meta = m; return nil }

func (x dumper) Player(p market.PlayerRow) error {
	x.d.Players = append(x.d.Players, fmt.Sprintf("%s %s %q %d booked %d %d %x %x v%d", p.ID, p.Name, p.Perms, p.Balance, p.Booked, p.LastSell, p.Inventory, p.Extra, p.Version))
	return nil
}

func (x dumper) Mail(m market.MailRow) error {
	x.d.Mail = append(x.d.Mail, fmt.Sprintf("%s %s %x %s %d %d", m.ID, m.Player, m.Item, m.Reason, m.Created, m.PrevPrice))
	return nil
}

func (x dumper) Listing(l market.ListingRow) error {
	x.d.Listings = append(x.d.Listings, fmt.Sprintf("%d %x", l.ID, l.Rec))
	return nil
}

func (x dumper) Order(o market.OrderRow) error {
	x.d.Orders = append(x.d.Orders, fmt.Sprintf("%d %x", o.ID, o.Rec))
	return nil
}

func (x dumper) Transaction(tr market.TxRow) error {
	x.d.Txs = append(x.d.Txs, fmt.Sprintf("%s %s %x", tr.ID, tr.State, tr.Rec))
	return nil
}

// DumpStore reads everything st holds: rows, history and the event log.
// st is a store or a snapshot of one.
func DumpStore(t testing.TB, st interface {
	market.Reader
	ReadEvents(after uint64, limit int, fn func(market.EventRow) error) (int, error)
}) Dump {
	t.Helper()
	var d Dump
	if err := st.Load(dumper{&d}); err != nil {
		t.Fatal(err)
	}
	var after [16]byte
	for {
		n, err := st.LoadHistory(after, 1000, func(tr market.TxRow) error {
			after = tr.ID
			return dumper{&d}.Transaction(tr)
		})
		if err != nil {
			t.Fatal(err)
		}
		if n < 1000 {
			break
		}
	}
	if _, err := st.ReadEvents(0, 1<<30, func(e market.EventRow) error {
		d.Events = append(d.Events, eventString(e))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	d.Published = d.Meta.PublishedSeq
	// What Load reports about sizes and the log is not a row.
	d.Meta = market.MetaRow{NextListingID: d.Meta.NextListingID, FeeBalance: d.Meta.FeeBalance,
		Volume: d.Meta.Volume, Sales: d.Meta.Sales, Issuance: d.Meta.Issuance,
		Opening: d.Meta.Opening, Trimmed: d.Meta.Trimmed, TrimmedAt: d.Meta.TrimmedAt, HasOpening: d.Meta.HasOpening}
	d.sort()
	return d
}

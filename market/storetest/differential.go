package storetest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
)

// Differential runs random batches against the store open returns and
// against Model, seed by seed, and compares them: each batch accepted or
// refused alike, and the same rows and log live and after reopen (which
// closes the store and opens it again).
func Differential(t *testing.T, open func(t *testing.T) (st market.Store, reopen func() market.Store)) {
	for seed := uint64(1); seed <= 8; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			st, reopen := open(t)
			model := NewModel()
			g := newOpGen(rand.New(rand.NewPCG(seed, 77)))
			accepted := 0
			for step := 0; step < 1000; step++ {
				if g.r.IntN(20) == 0 {
					n := 1 + g.r.IntN(2000)
					got, err := st.ReserveListingIDs(n)
					if want := model.ReserveListingIDs(n); err != nil || got != want {
						t.Fatalf("step %d: reserving %d listing ids gave %d (%v), the model %d", step, n, got, err, want)
					}
					continue
				}
				b := g.batch(model)
				mb := cloneBatch(b)
				want := model.Commit(mb)
				got := st.Commit(b)
				if (got == nil) != (want == nil) || errors.Is(got, market.ErrConflict) != errors.Is(want, market.ErrConflict) {
					t.Fatalf("step %d, batch %s: the store says %v, the model %v", step, g.describe(b), got, want)
				}
				if got == nil {
					accepted++
					if g, w := reported(b), reported(mb); g != w {
						t.Fatalf("step %d: the store reported %s, the model %s", step, g, w)
					}
				}
			}
			if accepted < 200 || accepted > 900 {
				t.Fatalf("%d of 1,000 batches accepted: the generator no longer mixes good and bad batches", accepted)
			}
			want := model.dump()
			if got := DumpStore(t, st); !reflect.DeepEqual(got, want) {
				t.Fatalf("the store differs from the model:\nstore %+v\nmodel %+v", got, want)
			}
			st = reopen()
			if got := DumpStore(t, st); !reflect.DeepEqual(got, want) {
				t.Fatalf("after reopening, the store differs from the model:\nstore %+v\nmodel %+v", got, want)
			}
		})
	}
}

// cloneBatch copies b deeply enough that what Commit reports into its ops
// does not reach b.
func cloneBatch(b *market.Batch) *market.Batch {
	c := *b
	c.Ops = append([]market.Op(nil), b.Ops...)
	copies := map[*market.PlayerRow]*market.PlayerRow{} // an op twice in b is twice in c
	for i := range c.Ops {
		if p := c.Ops[i].Player; p != nil {
			if copies[p] == nil {
				cp := *p
				copies[p] = &cp
			}
			c.Ops[i].Player = copies[p]
		}
	}
	c.Events = append([]market.EventRow(nil), b.Events...)
	return &c
}

// reported is what Commit wrote back into b's ops: players' balances and
// versions, the counters' totals.
func reported(b *market.Batch) string {
	s := ""
	for _, op := range b.Ops {
		switch op.Kind {
		case market.OpPlayerState:
			s += fmt.Sprintf("[player %d v%d] ", op.Player.Balance, op.Player.Version)
		case market.OpCounters:
			s += fmt.Sprintf("[counters %d %d %d] ", op.Meta.FeeBalance, op.Meta.Volume, op.Meta.Sales)
		case market.OpIssuance:
			s += fmt.Sprintf("[issuance %+v] ", op.Meta.Issuance)
		case market.OpPlayerProfile:
			s += fmt.Sprintf("[profile v%d] ", op.Player.Version)
		}
	}
	return s
}

// opGen makes random ops over a few keys of each kind.
type opGen struct {
	r                      *rand.Rand
	players, mail, txs     []uuid.UUID
	nonTerminal, allStates []market.State
}

func newOpGen(r *rand.Rand) *opGen {
	g := &opGen{r: r}
	for i := 0; i < 4; i++ {
		g.players = append(g.players, uuid.New())
		g.mail = append(g.mail, uuid.New())
	}
	for i := 0; i < 6; i++ {
		g.txs = append(g.txs, uuid.Must(uuid.NewV7()))
	}
	g.allStates = market.States()
	for _, s := range g.allStates {
		if !s.Terminal() {
			g.nonTerminal = append(g.nonTerminal, s)
		}
	}
	return g
}

func (g *opGen) pick(ids []uuid.UUID) uuid.UUID { return ids[g.r.IntN(len(ids))] }

// txID is a new id one time in three (a batch may then insert it twice),
// else one of the last few.
func (g *opGen) txID() uuid.UUID {
	if g.r.IntN(3) == 0 {
		g.txs = append(g.txs, uuid.Must(uuid.NewV7()))
		return g.txs[len(g.txs)-1]
	}
	return g.txs[len(g.txs)-1-g.r.IntN(min(6, len(g.txs)))]
}

// op makes one op; the conditions of the conditional ones hold about half
// the time (m is the model as the batch begins).
func (g *opGen) op(m *Model) market.Op {
	r := g.r
	blob := []byte{byte(r.IntN(4)), byte(r.IntN(4))}
	expect := func(have []byte) []byte {
		if r.IntN(2) == 0 {
			return have
		}
		return []byte{byte(r.IntN(4)), byte(r.IntN(4))}
	}
	switch r.IntN(15) {
	case 0:
		return market.Op{Kind: market.OpAddPlayer, Player: &market.PlayerRow{ID: g.pick(g.players), Name: fmt.Sprint("p", r.IntN(9)),
			Perms: "", Balance: market.Money(r.IntN(1000)), LastSell: int64(r.IntN(100)), Inventory: blob, Extra: []byte{byte(r.IntN(3))}}}
	case 1:
		id := g.pick(g.players)
		op := market.Op{Kind: market.OpPlayerState, Delta: market.Money(r.IntN(1200) - 600),
			Player: &market.PlayerRow{ID: id, LastSell: int64(r.IntN(100))}}
		if r.IntN(2) == 0 {
			op.Player.Inventory, op.Expect = blob, expect(m.players[id].Inventory)
		}
		if r.IntN(3) == 0 {
			op.Player.Extra, op.ExpectExtra = []byte{byte(r.IntN(3))}, expect(m.players[id].Extra)
		}
		return op
	case 2:
		return market.Op{Kind: market.OpPutMail, Mail: &market.MailRow{ID: g.pick(g.mail), Player: g.pick(g.players), Item: blob, Reason: "EXPIRED", Created: int64(r.IntN(100))}}
	case 3:
		return market.Op{Kind: market.OpDelMail, Mail: &market.MailRow{ID: g.pick(g.mail)}}
	case 4:
		return market.Op{Kind: market.OpAddListing, Listing: &market.ListingRow{ID: int64(1 + r.IntN(6)), Rec: blob}}
	case 5:
		id := int64(1 + r.IntN(6))
		return market.Op{Kind: market.OpDelListing, Int: id, Expect: expect(m.listings[id])}
	case 8:
		id := int64(1 + r.IntN(6))
		return market.Op{Kind: market.OpListingState, Listing: &market.ListingRow{ID: id, Rec: blob}, Expect: expect(m.listings[id])}
	case 9:
		from := m.meta.NextListingID
		if r.IntN(2) == 0 {
			from += int64(r.IntN(3))
		}
		return market.Op{Kind: market.OpListingIDs, Int: from, Meta: market.MetaRow{NextListingID: from + int64(r.IntN(50))}}
	case 10:
		return market.Op{Kind: market.OpIssuance, Meta: market.MetaRow{Issuance: market.Issuance{MoneyIn: market.Money(r.IntN(100)),
			MoneyOut: market.Money(r.IntN(100)), ItemsIn: int64(r.IntN(64)), ItemsOut: int64(r.IntN(64))}}}
	case 11:
		id := g.pick(g.players)
		version := m.players[id].Version
		if r.IntN(3) == 0 {
			version += int64(1 + r.IntN(2)) // stale or ahead: refused
		}
		return market.Op{Kind: market.OpPlayerProfile, Int: version, Player: &market.PlayerRow{ID: id, Name: fmt.Sprint("q", r.IntN(9)),
			Perms: []string{"", "market.admin", "market.use,market.sell"}[r.IntN(3)]}}
	case 13:
		return market.Op{Kind: market.OpLoaded, Meta: market.MetaRow{Opening: market.Opening{Money: market.Money(r.IntN(1000)),
			Items: int64(r.IntN(64)), LoadedThrough: int64(r.IntN(1000))}}}
	case 14:
		return market.Op{Kind: market.OpRecordOpening, Meta: market.MetaRow{Opening: market.Opening{Money: market.Money(r.IntN(1000)),
			Items: int64(r.IntN(64)), LoadedThrough: int64(r.IntN(1000))}, Trimmed: uint64(r.IntN(10)), TrimmedAt: int64(r.IntN(1000))}}
	case 6:
		return market.Op{Kind: market.OpPutTx, Tx: &market.TxRow{ID: g.txID(), State: g.allStates[r.IntN(len(g.allStates))], Rec: blob}}
	case 7:
		op := market.Op{Kind: market.OpTxState, Tx: &market.TxRow{ID: g.txID(), State: g.allStates[r.IntN(len(g.allStates))], Rec: blob},
			ExpectState: g.nonTerminal[r.IntN(len(g.nonTerminal))]}
		if r.IntN(2) == 0 { // the record too: as it is, or as it was
			op.Expect = expect(m.txs[op.Tx.ID].Rec)
			if t, ok := m.txs[op.Tx.ID]; ok && r.IntN(3) > 0 {
				op.ExpectState = t.State
			}
		}
		return op
	default:
		return market.Op{Kind: market.OpCounters, Meta: market.MetaRow{FeeBalance: market.Money(r.IntN(100)),
			Volume: market.Money(r.IntN(1000)), Sales: int64(r.IntN(3))}}
	}
}

// batch makes one to three ops, sometimes one twice, and zero to two log
// entries; now and then it marks delivery, sometimes past the newest entry
// (which both must refuse).
func (g *opGen) batch(m *Model) *market.Batch {
	b := &market.Batch{}
	for n := 1 + g.r.IntN(3); n > 0; n-- {
		b.Ops = append(b.Ops, g.op(m))
	}
	if g.r.IntN(8) == 0 {
		b.Ops = append(b.Ops, b.Ops[g.r.IntN(len(b.Ops))])
	}
	kinds := []market.EventKind{market.KindListingCreated, market.KindTransactionStep, market.KindListingExpired}
	for n := g.r.IntN(3); n > 0; n-- {
		b.Events = append(b.Events, market.EventRow{Kind: kinds[g.r.IntN(len(kinds))], At: int64(g.r.IntN(1000)),
			Body: []byte{byte(g.r.IntN(256))}})
	}
	if g.r.IntN(4) == 0 {
		b.Published = uint64(len(m.events)) + uint64(g.r.IntN(3))
	}
	return b
}

func (g *opGen) describe(b *market.Batch) string {
	s := ""
	for _, op := range b.Ops {
		s += fmt.Sprintf("[kind %d] ", op.Kind)
	}
	return s + fmt.Sprintf("+ %d log entries, published %d", len(b.Events), b.Published)
}

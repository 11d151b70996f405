package search

import (
	"math/rand/v2"
	"testing"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/internal/item"
	"github.com/rynek/rynek/market/playertext"
)

// BenchmarkAlertsOnNewListing is the main thread's extra work when a
// listing is created in a market with 100,000 price alerts across players:
// finding the alerts the listing fires (Alerts.Fired). The alerts look
// for words of the catalogue's item names; most do not match a given
// listing, and of those that do, most are below its unit price. Compare
// with BenchmarkAlertsOnNewListing/none; /100000-bargains has every
// ceiling at 0.01 a item, so that almost none fires.
func BenchmarkAlertsOnNewListing(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	var mats []uint16
	for id := 1; id < catalog.MaterialCapacity && catalog.Material(uint16(id)).Key != ""; id++ {
		mats = append(mats, uint16(id))
	}
	var vocab []string
	for _, m := range mats {
		vocab = playertext.AppendWords(vocab, catalog.Material(m).Name)
	}
	listings := make([]item.Item, 1024)
	for i := range listings {
		listings[i] = item.Item{UID: uuid.New(), Mat: mats[rng.IntN(len(mats))], Amount: uint8(1 + rng.IntN(64))}
	}
	for _, c := range []struct {
		name    string
		n       int
		ceiling int // alerts' ceilings are 0.01 to this many cents per item
	}{{"none", 0, 0}, {"100000", 100_000, 500}, {"100000-bargains", 100_000, 1}} {
		n := c.n
		b.Run(c.name, func(b *testing.B) {
			var ai Alerts[*testAlert]
			records := make([]testAlert, n)
			for i := range records {
				q := vocab[rng.IntN(len(vocab))]
				if rng.IntN(3) == 0 {
					q += " " + vocab[rng.IntN(len(vocab))]
				}
				records[i] = testAlert{query: q, words: ParseText(q).Words}
				ai.Add(int32(i%10_000), &records[i], records[i].words, int64(1+rng.IntN(c.ceiling)))
			}
			fired := 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				it := listings[i%len(listings)]
				fired += len(ai.Fired(it, int64(100+rng.IntN(100_000)), 10_001, "Sprzedawca_1"))
			}
			b.ReportMetric(float64(fired)/float64(b.N), "fired/op")
		})
	}
}

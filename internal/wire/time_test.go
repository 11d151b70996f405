package wire

import (
	"encoding/json"
	"regexp"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
)

// wireTime is the one form of every time on the wire.
var wireTime = regexp.MustCompile(`^"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z"$`)

// TestTimesHaveThreeDecimals: every time of a listing, a transaction and a
// price bucket has exactly three decimals, whatever its milliseconds (none,
// 760, 7) and zone, where encoding/json's own form wrote 0 to 9.
func TestTimesHaveThreeDecimals(t *testing.T) {
	cet := time.FixedZone("CET", 3600)
	for _, c := range []struct {
		at   time.Time
		want string
	}{
		{time.Date(2026, 11, 25, 17, 40, 4, 0, cet), `"2026-11-25T16:40:04.000Z"`},
		{time.Date(2026, 11, 25, 16, 40, 4, 760_000_000, time.UTC), `"2026-11-25T16:40:04.760Z"`},
		{time.Date(2026, 11, 25, 16, 40, 4, 7_000_000, time.UTC), `"2026-11-25T16:40:04.007Z"`},
		{time.Date(2026, 11, 25, 16, 40, 4, 7_999_999, time.UTC), `"2026-11-25T16:40:04.007Z"`}, // cut, never rounded into the next ms
	} {
		l := market.Listing{ID: 1, Seller: seller, Item: sampleItem(), Price: 1, CreatedAt: c.at, ExpiresAt: c.at}
		tx := market.Transaction{ID: "x", Item: sampleItem(), State: market.StateCompleted,
			Timeline: []market.StateTime{{State: market.StateCreated, At: c.at}, {State: market.StateCompleted, At: c.at}}}
		ph := market.PriceHistory{Points: []market.PricePoint{{Start: c.at}}}
		for name, v := range map[string]any{"listing": NewListing(l), "transaction": NewTransaction(tx),
			"price history": NewPriceHistory(ph, "24h", 1)} {
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			times := regexp.MustCompile(`"(createdAt|expiresAt|updatedAt|at|start)":("[^"]*")`).FindAllSubmatch(b, -1)
			if len(times) == 0 {
				t.Fatalf("%s has no times: %s", name, b)
			}
			for _, m := range times {
				if string(m[2]) != c.want || !wireTime.Match(m[2]) {
					t.Errorf("%s %s = %s, want %s", name, m[1], m[2], c.want)
				}
			}
		}
	}
}

// TestTimeReadsBack: a time read from the wire is the instant written.
func TestTimeReadsBack(t *testing.T) {
	at := time.Date(2026, 11, 25, 16, 40, 4, 760_000_000, time.UTC)
	b, err := json.Marshal(NewListing(market.Listing{ID: 1, Item: sampleItem(), Price: 1, CreatedAt: at, ExpiresAt: at}))
	if err != nil {
		t.Fatal(err)
	}
	var l Listing
	if err := json.Unmarshal(b, &l); err != nil {
		t.Fatal(err)
	}
	if !l.CreatedAt.Equal(at) {
		t.Errorf("read back %v, want %v", l.CreatedAt, at)
	}
}

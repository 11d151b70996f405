package market_test

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
)

// TestRefundAndRateDuringHistoryLoad: Rate on the main thread while the
// background load adds transactions neither races with it nor waits for it
// (run under -race).
func TestRefundAndRateDuringHistoryLoad(t *testing.T) {
	path, _, bob := historyWorld(t)
	st, err := sqlite.Open(path, sqlite.Options{})
	must(t, err)
	gs := &gatedStore{Store: st, gate: make(chan struct{})}
	svc := market.New(gs, market.Config{Clock: market.NewManualClock(t0), ListingCooldown: -1})
	svc.BindMainThread()
	must(t, svc.Enable())
	defer svc.Close()
	go func() { time.Sleep(20 * time.Millisecond); close(gs.gate) }()
	for !svc.HistoryLoaded() {
		svc.Rate(bob.ID, uuid.NewString(), 5) // refused while loading, never waiting
		svc.GetTransaction(uuid.NewString())
	}
}

package market_test

import (
	"testing"
	"time"

	"github.com/google/uuid"
)

// TestRefundAndRateDuringHistoryLoad: Rate on the main thread while the
// background load adds transactions neither races with it nor waits for it
// (run under -race).
func TestRefundAndRateDuringHistoryLoad(t *testing.T) {
	path, _, bob := historyWorld(t)
	svc, gs := openGated(t, path)
	go func() { time.Sleep(20 * time.Millisecond); close(gs.gate) }()
	for !svc.HistoryLoaded() {
		svc.Rate(bob.ID, uuid.NewString(), 5) // refused while loading, never waiting
		svc.GetTransaction(uuid.NewString())
	}
}

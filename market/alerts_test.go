package market_test

import (
	"sync"
	"testing"
)

// TestAlertsReadWhileFiring: Alerts (any goroutine) copies the alert
// records that a new listing's check stamps on the main thread (under
// -race).
func TestAlertsReadWhileFiring(t *testing.T) {
	w := newWorld(t)
	_, err := w.svc.AddAlert(w.bob.ID, "diam", 100)
	must(t, err)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			w.svc.Alerts(w.bob.ID)
		}
	}()
	for range 15 {
		st := w.stack(w.alice, 0)
		st.Amount = 1
		_, err := w.svc.SellItem(w.alice, st, 5)
		must(t, err)
	}
	close(stop)
	wg.Wait()
}

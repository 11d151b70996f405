package compare_test

// Load and memory: open a store of a million listings and a million
// transactions to ready, and the heap in use per listing after GC.

import (
	"database/sql"
	"runtime"
	"testing"
	"time"

	"github.com/rynek/rynek/internal/benchdata"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
)

// loadDays of history at seed's cap of 20,000 sales a day give a million
// transactions.
const loadDays = 50

func loadHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkCompareLoad opens 1M listings + 1M transactions to ready (the
// finished transactions then load in the background) and reports the heap
// per listing once everything is loaded (transactions included, divided by
// the listings), and how long the history took after ready.
func BenchmarkCompareLoad(b *testing.B) {
	var perListing float64
	var txs int
	var history time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		path := benchdata.Path(b, 1_000_000, loadDays)
		before := loadHeap()
		b.StartTimer()
		svc, _ := benchdata.Open(b, path, sqlite.Options{}, market.Config{})
		b.StopTimer()
		if svc.HistoryLoaded() && txs == 0 && i == 0 {
			b.Log("history was already loaded at ready (an older store without counters?)")
		}
		hstart := time.Now()
		svc.WaitHistory() // the heap is measured with every transaction in memory
		history = time.Since(hstart)
		n, _ := svc.GetActiveListingsCount()
		page, _ := svc.Transactions(market.TxQuery{AllStates: true, Limit: 1})
		txs = page.Total
		perListing = float64(loadHeap()-before) / float64(n)
		runtime.KeepAlive(svc)
		svc.Close()
		b.StartTimer()
	}
	b.ReportMetric(perListing, "heapB/listing")
	b.ReportMetric(float64(txs), "transactions")
	b.ReportMetric(history.Seconds(), "history-after-ready-s")
}

// TestCompareLoadSmall loads a small store with history and checks it is
// all there: what the 1M benchmark measures, at a size CI can afford.
func TestCompareLoadSmall(t *testing.T) {
	path := benchdata.Path(t, 2_000, 3)
	svc, _ := benchdata.Open(t, path, sqlite.Options{}, market.Config{})
	defer svc.Close()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(svc.WaitHistory())
	n, _ := svc.GetActiveListingsCount()
	page, _ := svc.Transactions(market.TxQuery{AllStates: true, Limit: 1})
	// Every transaction row is loaded, the history's included: the file
	// itself says how many there are.
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	must(err)
	defer db.Close()
	var rows int
	must(db.QueryRow("SELECT count(*) FROM transactions").Scan(&rows))
	if n != 2_000 || page.Total != rows || rows < 3*100 { // seed: max(50, listings/20) sales a day, and more
		t.Fatalf("%d listings, %d transactions of the file's %d", n, page.Total, rows)
	}
	a, err := svc.Audit()
	if err != nil || len(a.Problems) > 0 {
		t.Fatalf("audit %v %v", err, a.Problems)
	}
}

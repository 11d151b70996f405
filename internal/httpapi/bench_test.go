package httpapi

import (
	"bufio"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rynek/rynek/internal/benchdata"
	"github.com/rynek/rynek/internal/traffic"
	"github.com/rynek/rynek/internal/wire"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
	_ "modernc.org/sqlite" // the "sqlite" driver of the SQL contender
)

// benchListings is the market size of the API benchmarks; the issue's
// figure is at a million. RYNEK_BENCH_API_LISTINGS changes it.
func benchListings(b *testing.B) int {
	if s := os.Getenv("RYNEK_BENCH_API_LISTINGS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1000 {
			b.Fatalf("RYNEK_BENCH_API_LISTINGS=%q: give a number of listings of 1000 or more", s)
		}
		return n
	}
	return 1_000_000
}

// benchAPI is one loaded market and its API, shared by the benchmarks of a
// run (they read only).
var benchAPI struct {
	n   int
	svc *market.Service
	api *Server
}

func loadBenchAPI(b *testing.B) (*market.Service, *Server) {
	b.Helper()
	n := benchListings(b)
	if benchAPI.svc == nil || benchAPI.n != n {
		svc, _ := benchdata.Open(b, benchdata.Path(b, n, -1), sqlite.Options{}, benchdata.Unlimited)
		benchAPI.n, benchAPI.svc, benchAPI.api = n, svc, New(svc, Options{})
	}
	return benchAPI.svc, benchAPI.api
}

// serve runs one request through the handler and returns its time. The
// kept answers are forgotten first: the figure is that of reading the
// market, what every request costs once per change.
func serve(b *testing.B, api *Server, path string) time.Duration {
	api.answers.mu.Lock()
	clear(api.answers.entries)
	api.answers.mu.Unlock()
	req := httptest.NewRequest("GET", path, nil)
	rec := httptest.NewRecorder()
	start := time.Now()
	api.ServeHTTP(rec, req)
	took := time.Since(start)
	if rec.Code != 200 {
		b.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
	}
	return took
}

func reportPercentiles(b *testing.B, ds []time.Duration) {
	slices.Sort(ds)
	at := func(q float64) float64 {
		return float64(ds[min(len(ds)-1, int(q*float64(len(ds))))].Nanoseconds()) / 1e6
	}
	b.ReportMetric(at(0.5), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
}

// BenchmarkListingsPage is GET /api/listings, a page of 50, in the handler
// (routing, parsing, the read, JSON): the first page of each sort, and
// pages deep in the newest and price orders by cursor.
func BenchmarkListingsPage(b *testing.B) {
	svc, api := loadBenchAPI(b)
	var paths []string
	for _, s := range SortValues {
		paths = append(paths, "/api/listings?sort="+s)
	}
	for _, mode := range []market.SortMode{market.SortNewest, market.SortCheapest} {
		for _, depth := range []int{1_000, benchAPI.n / 2, benchAPI.n - 100} {
			p, err := svc.Query(market.Query{Sort: mode, Offset: depth, Limit: 1})
			if err != nil || len(p.Listings) == 0 {
				b.Fatalf("no listing at depth %d: %v", depth, err)
			}
			q := market.Query{Sort: mode, Limit: DefaultLimit}
			c := market.Cursor{Sort: mode, ID: p.Listings[0].ID}
			if mode == market.SortCheapest {
				c.Key = int64(market.Money(p.Listings[0].Price*100 + 0.5))
			}
			name := "newest"
			if mode == market.SortCheapest {
				name = "price"
			}
			paths = append(paths, "/api/listings?sort="+name+"&cursor="+encodeListingCursor(c, q))
		}
	}
	paths = append(paths, "/api/listings?q=diamond", "/api/listings?category=tools&sort=price")
	ds := make([]time.Duration, 0, b.N)
	byPath := make([][]time.Duration, len(paths))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d := serve(b, api, paths[i%len(paths)])
		ds = append(ds, d)
		byPath[i%len(paths)] = append(byPath[i%len(paths)], d)
	}
	b.StopTimer()
	for i, p := range byPath {
		if len(p) > 0 {
			slices.Sort(p)
			b.Logf("%-60.60s p50 %8s  max %8s", paths[i], p[len(p)/2], p[len(p)-1])
		}
	}
	reportPercentiles(b, ds)
}

// sqlListings is the same market as a SQL table, the way a user would serve
// the route with SQL: one row per listing, indexes for the sorts, pages by
// ORDER BY … LIMIT … OFFSET.
func sqlListings(b *testing.B, svc *market.Service) *sql.DB {
	b.Helper()
	path := filepath.Join(b.TempDir(), "listings-sql.db")
	db, err := sql.Open("sqlite", path+"?_pragma=journal_mode(wal)&_pragma=synchronous(off)")
	if err != nil {
		b.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	b.Cleanup(func() { db.Close() })
	for _, stmt := range []string{
		`CREATE TABLE listings (id INTEGER PRIMARY KEY, material TEXT, name TEXT, amount INTEGER, price INTEGER,
			seller TEXT, seller_name TEXT, created INTEGER, expires INTEGER, categories TEXT)`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			b.Fatal(err)
		}
	}
	all, err := svc.GetListings()
	if err != nil {
		b.Fatal(err)
	}
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	ins, err := tx.Prepare(`INSERT INTO listings VALUES (?,?,?,?,?,?,?,?,?,?)`)
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range all {
		w := wire.NewListing(l)
		cats, _ := json.Marshal(w.Categories)
		if _, err := ins.Exec(l.ID, w.Item.Material, w.Item.Name, w.Item.Amount, int64(market.Money(l.Price*100+0.5)),
			w.Seller.UUID, w.Seller.Name, l.CreatedAt.UnixMilli(), l.ExpiresAt.UnixMilli(), string(cats)); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	if _, err := db.Exec(`CREATE INDEX listings_price ON listings (price, id)`); err != nil {
		b.Fatal(err)
	}
	return db
}

// sqlPage answers the route the SQL way: a page at an offset, each row
// decoded and encoded to JSON.
func sqlPage(db *sql.DB, order string, offset int) ([]byte, error) {
	rows, err := db.Query(`SELECT id, material, name, amount, price, seller, seller_name, created, expires, categories
		FROM listings ORDER BY `+order+` LIMIT ? OFFSET ?`, DefaultLimit, offset)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var page struct {
		Items []wire.Listing `json:"items"`
	}
	for rows.Next() {
		var l wire.Listing
		var price, created, expires int64
		var cats string
		if err := rows.Scan(&l.ID, &l.Item.Material, &l.Item.Name, &l.Item.Amount, &price, &l.Seller.UUID,
			&l.Seller.Name, &created, &expires, &cats); err != nil {
			return nil, err
		}
		l.Price = market.FormatMoney(market.Money(price))
		l.CreatedAt, l.ExpiresAt = wire.At(time.UnixMilli(created)), wire.At(time.UnixMilli(expires))
		json.Unmarshal([]byte(cats), &l.Categories)
		page.Items = append(page.Items, l)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return json.Marshal(page)
}

// BenchmarkListingsVsSQLOffset answers the same pages (50 listings, newest
// and cheapest first, at several depths) through the API and through SQL
// over the same data with OFFSET, in one run, and reports the ratio.
func BenchmarkListingsVsSQLOffset(b *testing.B) {
	svc, api := loadBenchAPI(b)
	db := sqlListings(b, svc)
	for _, c := range []struct {
		name  string
		mode  market.SortMode
		param string
		order string
	}{
		{"newest", market.SortNewest, "newest", "id DESC"},
		{"price", market.SortCheapest, "price", "price, id"},
	} {
		for _, depth := range []int{0, 10_000, benchAPI.n / 2} {
			b.Run(fmt.Sprintf("%s/depth=%d", c.name, depth), func(b *testing.B) {
				path := "/api/listings?sort=" + c.param
				if depth > 0 {
					p, err := svc.Query(market.Query{Sort: c.mode, Offset: depth - 1, Limit: 1})
					if err != nil || len(p.Listings) == 0 {
						b.Fatalf("depth %d: %v", depth, err)
					}
					cur := market.Cursor{Sort: c.mode, ID: p.Listings[0].ID}
					if c.mode == market.SortCheapest {
						cur.Key = int64(market.Money(p.Listings[0].Price*100 + 0.5))
					}
					path += "&cursor=" + encodeListingCursor(cur, market.Query{Sort: c.mode})
				}
				// Both give the same listings.
				rec := httptest.NewRecorder()
				api.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
				var ours wire.ListingPage
				json.Unmarshal(rec.Body.Bytes(), &ours)
				body, err := sqlPage(db, c.order, depth)
				if err != nil {
					b.Fatal(err)
				}
				var theirs wire.ListingPage
				json.Unmarshal(body, &theirs)
				if len(ours.Items) != DefaultLimit || len(theirs.Items) != DefaultLimit || ours.Items[0].ID != theirs.Items[0].ID ||
					ours.Items[DefaultLimit-1].ID != theirs.Items[DefaultLimit-1].ID {
					b.Fatalf("the contenders disagree at depth %d", depth)
				}
				var tRynek, tSQL time.Duration
				for i := 0; i < b.N; i++ {
					tRynek += serve(b, api, path)
					start := time.Now()
					if _, err := sqlPage(db, c.order, depth); err != nil {
						b.Fatal(err)
					}
					tSQL += time.Since(start)
				}
				b.ReportMetric(float64(tRynek.Microseconds())/float64(b.N), "rynek-µs")
				b.ReportMetric(float64(tSQL.Microseconds())/float64(b.N), "sql-µs")
				b.ReportMetric(float64(tSQL)/float64(tRynek), "sql÷rynek")
			})
		}
	}
}

// envInt reads a positive whole number from the environment.
func envInt(b *testing.B, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		b.Fatalf("%s=%q: give a positive whole number", name, s)
	}
	return n
}

// BenchmarkStreamBurst: stream clients (RYNEK_BENCH_STREAM_CLIENTS, 1,000)
// on loopback receive a burst of events (RYNEK_BENCH_STREAM_EVENTS,
// 10,000) made by the main thread in ticks; every client must receive
// every event. The tick's work p99 is measured with the clients and
// without them, in the same run, by the wall clock and in the main
// thread's CPU time: the readers must not slow the main thread's own work
// (tick-cpu-ratio, streaming over alone, at most 2), while on two cores
// the clients in this process take CPU the loop cannot have (the wall).
func BenchmarkStreamBurst(b *testing.B) {
	clients := envInt(b, "RYNEK_BENCH_STREAM_CLIENTS", 1000)
	burst := envInt(b, "RYNEK_BENCH_STREAM_EVENTS", 10_000)
	svc, _ := benchdata.Open(b, benchdata.Path(b, 100_000, -1), sqlite.Options{}, benchdata.Unlimited)
	defer svc.Close()
	api := New(svc, Options{})
	srv := httptest.NewServer(api)
	defer srv.Close()
	defer api.Close()
	players, err := svc.Players()
	if err != nil {
		b.Fatal(err)
	}
	gen := traffic.New(1)
	var published atomic.Int64
	svc.Subscribe(func(market.Event) { published.Add(1) })
	// ticks makes n events in ticks of perTick events and returns each
	// tick's work, by the wall clock and in the main thread's CPU time
	// (which a load generator on the same cores does not inflate).
	ticks := func(n, perTick int) (walls, cpus []time.Duration) {
		for target := published.Load() + int64(n); published.Load() < target; {
			wall, cpu, err := svc.MeasureTick(func() {
				for goal := min(published.Load()+int64(perTick), target); published.Load() < goal; {
					gen.One(svc, players)
				}
			})
			if err != nil {
				b.Fatal(err)
			}
			walls, cpus = append(walls, wall), append(cpus, cpu)
			time.Sleep(time.Second / 20)
		}
		return walls, cpus
	}
	p99 := func(ds []time.Duration) time.Duration {
		slices.Sort(ds)
		return ds[min(len(ds)-1, len(ds)*99/100)]
	}
	perTick := max(1, burst/40) // the burst over two seconds of 20 ticks
	for i := 0; i < b.N; i++ {
		aloneWall, aloneCPU := ticks(burst, perTick)
		from := svc.Version()
		var wg sync.WaitGroup
		got := make([]int, clients)
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: -1}}
		ready := make(chan struct{}, clients)
		for c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := client.Get(fmt.Sprintf("%s/api/events?since=%d", srv.URL, from))
				if err != nil {
					b.Error(err)
					ready <- struct{}{}
					return
				}
				defer res.Body.Close()
				ready <- struct{}{}
				r := bufio.NewReaderSize(res.Body, 64<<10)
				for got[c] < burst {
					line, err := r.ReadSlice('\n')
					if err != nil {
						return
					}
					if len(line) > 4 && string(line[:4]) == "id: " {
						got[c]++
					}
				}
			}()
		}
		for range clients {
			<-ready
		}
		start := time.Now()
		withWall, withCPU := ticks(burst, perTick)
		wg.Wait()
		took := time.Since(start)
		lost := 0
		for _, n := range got {
			lost += burst - n
		}
		if lost != 0 {
			b.Fatalf("%d events lost over %d clients", lost, clients)
		}
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		b.ReportMetric(ms(p99(aloneWall)), "tick-p99-alone-ms")
		b.ReportMetric(ms(p99(withWall)), "tick-p99-streaming-ms")
		alone, with := p99(aloneCPU), p99(withCPU)
		b.ReportMetric(ms(alone), "tick-cpu-p99-alone-ms")
		b.ReportMetric(ms(with), "tick-cpu-p99-streaming-ms")
		b.ReportMetric(with.Seconds()/alone.Seconds(), "tick-cpu-ratio") // target: at most 2
		b.ReportMetric(took.Seconds(), "burst-delivered-s")
	}
}

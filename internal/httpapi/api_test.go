package httpapi

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/rynek/rynek/internal/traffic"
	"github.com/rynek/rynek/internal/wire"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/seed"
)

func TestListingsPageAndOneListing(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 500}, Options{})
	var page wire.ListingPage
	a := e.getJSON("/api/listings?limit=10", &page)
	want, err := e.svc.Query(market.Query{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 10 || page.Total != want.Total || page.Version != e.svc.Version() || page.NextCursor == "" {
		t.Fatalf("%d items of %d (want %d), version %d, cursor %q", len(page.Items), page.Total, want.Total, page.Version, page.NextCursor)
	}
	for i, l := range want.Listings {
		if page.Items[i].ID != l.ID || page.Items[i].Price != wire.Money(l.Price) {
			t.Errorf("item %d: %d at %s, want %d at %v", i, page.Items[i].ID, page.Items[i].Price, l.ID, l.Price)
		}
	}
	if got := a.header.Get("ETag"); got != fmt.Sprintf(`W/"%d"`, page.Version) {
		t.Errorf("ETag %q", got)
	}
	if got := a.header.Get("Cache-Control"); got != "no-cache" {
		t.Errorf("Cache-Control %q", got)
	}
	// One listing, byte for byte its wire form.
	l, err := e.svc.GetListing(want.Listings[3].ID)
	if err != nil {
		t.Fatal(err)
	}
	one := e.get(fmt.Sprintf("/api/listings/%d", l.ID))
	wantBody, _ := json.Marshal(wire.NewListing(l))
	if one.status != 200 || string(one.body) != string(wantBody)+"\n" {
		t.Errorf("GET one listing: %d %s\nwant %s", one.status, one.body, wantBody)
	}
}

func TestListingsFiltersAndSorts(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 800}, Options{})
	players, _ := e.svc.Players()
	seller := players[0].ID
	for _, c := range []struct {
		query string
		q     market.Query
	}{
		{"sort=price", market.Query{Sort: market.SortCheapest}},
		{"sort=price_desc&category=tools", market.Query{Sort: market.SortExpensive, Category: catalog.CategoryTools}},
		{"sort=unit_price&material=oak_log", market.Query{Sort: market.SortUnitPrice, Material: "OAK_LOG"}},
		{"sort=amount_desc&min_price=10&max_price=2000.50", market.Query{Sort: market.SortAmount, MinPrice: 10_00, MaxPrice: 2000_50}},
		{"min_amount=16&max_amount=32&sort=price", market.Query{Sort: market.SortCheapest, MinAmount: 16, MaxAmount: 32}},
		{"sort=oldest&seller=" + seller.String(), market.Query{Sort: market.SortOldest, Seller: seller}},
		{"q=" + url.QueryEscape("diament miecz"), market.Query{Text: "diament miecz"}},
		{"sort=amount&q=a", market.Query{Sort: market.SortLeastAmount, Text: "a"}},
		// q is the console's search box: its price: and amount: filters too.
		{"q=" + url.QueryEscape("price:..50"), market.Query{MaxPrice: 50_00}},
		{"sort=price&q=" + url.QueryEscape("amount:16..64 drewno"), market.Query{Sort: market.SortCheapest, Text: "drewno", MinAmount: 16, MaxAmount: 64}},
		{"min_amount=2&q=" + url.QueryEscape("PRICE:10..200"), market.Query{MinPrice: 10_00, MaxPrice: 200_00, MinAmount: 2}},
	} {
		var page wire.ListingPage
		e.getJSON("/api/listings?limit=500&"+c.query, &page)
		c.q.Limit = 500
		want, err := e.svc.Query(c.q)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Items) != len(want.Listings) || page.Total != want.Total || want.Total == 0 {
			t.Errorf("%s: %d items of %d, want %d of %d (and some)", c.query, len(page.Items), page.Total, len(want.Listings), want.Total)
			continue
		}
		for i, l := range want.Listings {
			if page.Items[i].ID != l.ID {
				t.Errorf("%s: item %d is %d, want %d", c.query, i, page.Items[i].ID, l.ID)
				break
			}
		}
	}
}

// TestPagingUnderConcurrentSells pages every sort through the HTTP API while
// traffic changes the market between pages: a listing that stayed on the
// market at its price is returned exactly once. (One whose price moved, an
// auction with a new bid, moved in the price orders and may come twice.)
func TestPagingUnderConcurrentSells(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 1500}, Options{})
	players, _ := e.svc.Players()
	gen := traffic.New(11)
	rng := rand.New(rand.NewPCG(11, 11))
	for _, sort := range SortValues {
		before, _ := e.svc.Query(market.Query{Sort: sortParams[sort], Limit: -1})
		seen := map[int]int{}
		path := "/api/listings?limit=37&sort=" + sort
		for cursor := ""; ; {
			var page wire.ListingPage
			p := path
			if cursor != "" {
				p += "&cursor=" + cursor
			}
			e.getJSON(p, &page)
			for _, l := range page.Items {
				seen[l.ID]++
			}
			if page.NextCursor == "" {
				break
			}
			cursor = page.NextCursor
			for range 5 + rng.IntN(30) {
				gen.One(e.svc, players)
			}
		}
		after, _ := e.svc.Query(market.Query{Sort: sortParams[sort], Limit: -1})
		// Stayed, and where it was: an auction's bid moves its price, and
		// with it its place in a price order, so it may come again.
		stayed, moved := map[int]bool{}, map[int]bool{}
		was := map[int]market.Listing{}
		for _, l := range before.Listings {
			was[l.ID] = l
		}
		for _, l := range after.Listings {
			w, ok := was[l.ID]
			moved[l.ID] = ok && (w.Price != l.Price || w.Item.Amount != l.Item.Amount)
			stayed[l.ID] = ok && !moved[l.ID]
		}
		for _, l := range before.Listings {
			if stayed[l.ID] && seen[l.ID] != 1 {
				t.Errorf("sort %s: listing %d stayed and was returned %d times", sort, l.ID, seen[l.ID])
			}
		}
		for id, n := range seen {
			if n > 1 && !moved[id] {
				t.Errorf("sort %s: listing %d returned %d times", sort, id, n)
			}
		}
	}
}

func TestETagAndNotModified(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 100}, Options{})
	first := e.get("/api/listings?limit=5")
	tag := first.header.Get("ETag")
	again := e.get("/api/listings?limit=5", "If-None-Match: "+tag)
	if again.status != 304 || len(again.body) != 0 || again.header.Get("ETag") != tag {
		t.Fatalf("revalidation: %d %q, ETag %q", again.status, again.body, again.header.Get("ETag"))
	}
	for _, path := range []string{"/api/categories", "/api/stats", "/api/history", "/api/price-history/DIAMOND"} {
		if a := e.get(path, "If-None-Match: "+tag); a.status != 304 {
			t.Errorf("%s with the current version's tag: %d", path, a.status)
		}
	}
	// A bad request stays a 400 even with a matching tag.
	if a := e.get("/api/listings?limit=0", "If-None-Match: "+tag); a.status != 400 {
		t.Errorf("bad limit with a matching tag: %d", a.status)
	}
	players, _ := e.svc.Players()
	traffic.New(1).Step(e.svc, players, 1000, 50*time.Millisecond)
	changed := e.get("/api/listings?limit=5", "If-None-Match: "+tag)
	if changed.status != 200 || changed.header.Get("ETag") == tag {
		t.Fatalf("after a change: %d, ETag %q (was %q)", changed.status, changed.header.Get("ETag"), tag)
	}
}

func TestOtherRoutes(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 300}, Options{})
	var cats wire.CategoryList
	e.getJSON("/api/categories", &cats)
	counts, _, _ := e.svc.CategoryCounts()
	if len(cats.Items) != 12 || cats.Items[0].Name != "ALL" || cats.Items[0].Active != counts[0].Active {
		t.Errorf("categories %+v", cats.Items)
	}
	players, _ := e.svc.Players()
	var prof wire.Profile
	e.getJSON("/api/players/"+players[1].ID.String(), &prof)
	want, _ := e.svc.Profile(players[1].ID)
	if prof.Name != want.Name || prof.Sales != want.Sales || prof.Earned != wire.Money(want.Earned) {
		t.Errorf("profile %+v, want %+v", prof, want)
	}
	raw := e.get("/api/players/" + players[1].ID.String())
	for _, secret := range []string{"balance", "inventory", "mail"} {
		if strings.Contains(strings.ToLower(string(raw.body)), secret) {
			t.Errorf("the public profile mentions %s: %s", secret, raw.body)
		}
	}
	var st wire.Stats
	e.getJSON("/api/stats", &st)
	stats, _ := e.svc.Stats(statsTop)
	if st.TotalSales != stats.TotalSales || st.MarketVolume != wire.Money(stats.MarketVolume) || len(st.TopSellers) != len(stats.TopSellers) {
		t.Errorf("stats %+v", st)
	}
	var hist wire.TransactionPage
	e.getJSON("/api/history?limit=3", &hist)
	txs, _ := e.svc.Transactions(market.TxQuery{Limit: 3})
	if len(hist.Items) != 3 || hist.Items[0].ID != txs.Transactions[0].ID || hist.Items[0].State != "COMPLETED" || hist.NextCursor == "" {
		t.Fatalf("history %+v", hist)
	}
	var tx wire.Transaction
	e.getJSON("/api/transactions/"+hist.Items[1].ID, &tx)
	if tx.ID != hist.Items[1].ID || tx.Price != hist.Items[1].Price {
		t.Errorf("transaction %+v", tx)
	}
	var ph wire.PriceHistory
	e.getJSON("/api/price-history/"+hist.Items[0].Item.Material+"?span=30d", &ph)
	sold := 0
	for _, b := range ph.Buckets {
		sold += b.Count
		if b.Count > 0 && (b.Min == "" || b.Median == "" || b.Max == "") || b.Count == 0 && b.Min != "" {
			t.Errorf("bucket %+v", b)
		}
	}
	if len(ph.Buckets) != 30 || ph.Span != "30d" || ph.BucketMs != 86_400_000 || sold == 0 {
		t.Errorf("price history: %d buckets, span %s, width %d ms, %d sales", len(ph.Buckets), ph.Span, ph.BucketMs, sold)
	}
	var ps wire.PriceSummary
	mat := hist.Items[0].Item.Material
	e.getJSON("/api/price-summary/"+strings.ToLower(mat), &ps)
	summary, err := e.svc.PriceSummary(mat)
	if err != nil {
		t.Fatal(err)
	}
	if ps.Material != mat || ps.Sales != summary.Week.Sales || ps.Sales > 0 && ps.Median != wire.Money(summary.Week.Median) ||
		(ps.Cheapest == nil) != (summary.Cheapest == nil) || ps.Cheapest != nil && ps.Cheapest.ID != summary.Cheapest.ID {
		t.Errorf("price summary %+v, the service says %+v", ps, summary)
	}
	var h Health
	e.getJSON("/api/health", &h)
	if !h.Ready || h.Name != "Rynek" || h.Version != e.svc.Version() {
		t.Errorf("health %+v", h)
	}
	doc := e.get("/api/openapi.json")
	if doc.status != 200 || !strings.Contains(string(doc.body), `"openapi": "3.1.0"`) {
		t.Errorf("openapi: %d", doc.status)
	}
	site := e.get("/")
	if site.status != 200 || !strings.HasPrefix(site.header.Get("Content-Type"), "text/html") ||
		site.header.Get("Content-Security-Policy") != sitePolicy {
		t.Errorf("website: %d %q %q", site.status, site.header.Get("Content-Type"), site.header.Get("Content-Security-Policy"))
	}
}

// TestErrors pins each error's status, code, parameter and detail.
func TestErrors(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 50}, Options{})
	for _, c := range []struct {
		path, param, code, detail string
		status                    int
	}{
		{"/api/listings/999999", "", CodeListingNotFound, "listing 999999 was never on the market", 404},
		{"/api/players/01234567-89ab-4cde-8f01-23456789abcd", "", CodePlayerNotFound, "no player 01234567-89ab-4cde-8f01-23456789abcd", 404},
		{"/api/transactions/01234567-89ab-4cde-8f01-23456789abcd", "", CodeTransactionMissing, "no transaction 01234567-89ab-4cde-8f01-23456789abcd", 404},
		{"/api/price-history/NO_SUCH_ITEM", "", CodeItemNotFound, `no item "NO_SUCH_ITEM" in the market's catalogue`, 404},
		{"/api/price-summary/NO_SUCH_ITEM", "", CodeItemNotFound, `no item "NO_SUCH_ITEM" in the market's catalogue`, 404},
		{"/api/price-summary/DIAMOND?span=7d", "span", CodeBadParameter, `unknown parameter "span"; this route takes no parameters`, 400},
		{"/api/nothing", "", CodeNotFound, "no such route; see /api/openapi.json", 404},
		{"/api/listings?limit=501", "limit", CodeBadParameter, `limit must be a whole number from 1 to 500, got "501"`, 400},
		{"/api/listings?sort=cheap", "sort", CodeBadParameter, `sort must be one of newest, oldest, price, price_desc, unit_price, amount, amount_desc, ending, got "cheap"`, 400},
		{"/api/listings?categroy=tools", "categroy", CodeBadParameter, `unknown parameter "categroy"; this route takes: q, category, seller, material, min_price, max_price, min_amount, max_amount, kind, sort, limit, cursor`, 400},
		{"/api/listings?category=weapon", "category", CodeBadParameter, `unknown category "weapon" (see /api/categories)`, 400},
		{"/api/listings?limit=5&limit=6", "limit", CodeBadParameter, "parameter limit is given 2 times; give it once", 400},
		{"/api/listings?min_price=abc", "min_price", CodeBadParameter, `min_price must be a price from 1.00 to 1000000.00 with at most 2 decimals (12, 12.50 or 12,50), got "abc"`, 400},
		{"/api/listings?min_price=-5", "min_price", CodeBadParameter, `min_price must be a price from 1.00 to 1000000.00 with at most 2 decimals (12, 12.50 or 12,50), got "-5"`, 400},
		{"/api/listings?max_price=0.001", "max_price", CodeBadParameter, `max_price must be a price from 1.00 to 1000000.00 with at most 2 decimals (12, 12.50 or 12,50), got "0.001"`, 400},
		{"/api/listings?q=diament+price:-5", "q", CodeBadParameter, `price:-5: price "-5" is negative; prices are 1.00 to 1000000.00`, 400},
		{"/api/listings?q=amount:100", "q", CodeBadParameter, `amount:100: an amount is a whole number from 1 to 99, not "100"`, 400},
		{"/api/listings?q=price:..50&max_price=40", "max_price", CodeBadParameter, "q already bounds the price with price:; give max_price or the filter, not both", 400},
		{"/api/listings?q=amount:64&min_amount=2", "min_amount", CodeBadParameter, "q already bounds the amount with amount:; give min_amount or the filter, not both", 400},
		{"/api/listings?min_price=20&max_price=10", "min_price", CodeBadParameter, "min_price 20.00 is above max_price 10.00", 400},
		{"/api/listings?min_amount=0", "min_amount", CodeBadParameter, `min_amount must be a whole number from 1 to 99, got "0"`, 400},
		{"/api/listings?max_amount=x", "max_amount", CodeBadParameter, `max_amount must be a whole number from 1 to 99, got "x"`, 400},
		{"/api/listings?min_amount=40&max_amount=8", "min_amount", CodeBadParameter, "min_amount 40 is above max_amount 8", 400},
		{"/api/listings?cursor=xyz", "cursor", CodeBadCursor, "cursor is not one this API gave out; pass nextCursor back unchanged", 400},
		{"/api/listings?access_token=x", "access_token", CodeBadParameter, "access_token is accepted only by /api/events; send the token as Authorization: Bearer", 400},
		{"/api/listings/0", "id", CodeBadParameter, `a listing id is a whole number from 1 to 2147483647, got "0"`, 400},
		{"/api/history?span=7d", "span", CodeBadParameter, `unknown parameter "span"; this route takes: limit, cursor, player`, 400},
		{"/api/price-history/DIAMOND?span=1y", "span", CodeBadParameter, `span must be 24h, 7d or 30d, got "1y"`, 400},
		{"/api/events?since=abc", "since", CodeBadParameter, `since must be an event id (a version, a whole number), got "abc"`, 400},
		{"/api/listings?q=%23-1", "q", CodeBadParameter, `#-1: a listing id is a whole number from 1 to 2147483647, got "-1"`, 400},
		{"/api/listings?q=%2399999999999999999999", "q", CodeBadParameter, `#99999999999999999999: a listing id is a whole number from 1 to 2147483647, got "99999999999999999999"`, 400},
		{"/api/listings/", "", CodeBadPath, "the path is not in canonical form (no '..', '//', encoded '/' or trailing '/')", 400},
	} {
		a := e.get(c.path)
		p := a.problem(t)
		if a.status != c.status || p.Status != c.status || p.Code != c.code || p.Parameter != c.param || p.Detail != c.detail {
			t.Errorf("%s: %d %+v\nwant %d %s %q %q", c.path, a.status, p, c.status, c.code, c.param, c.detail)
		}
		if p.Type != "about:blank" || p.Title == "" || strings.Contains(p.Instance, "?") {
			t.Errorf("%s: problem %+v", c.path, p)
		}
	}
	// Not allowed methods.
	a := e.do("POST", "/api/listings")
	if p := a.problem(t); a.status != 405 || p.Code != CodeMethodNotAllowed || a.header.Get("Allow") != "GET, HEAD, OPTIONS" {
		t.Errorf("POST: %d %+v", a.status, p)
	}
	// Not ready: the contract's exact text, with Retry-After, on every route.
	e.svc.Disable()
	for _, path := range []string{"/api/listings", "/api/listings/1", "/api/categories", "/api/stats", "/api/history",
		"/api/health", "/api/events", "/api/price-history/DIAMOND", "/api/players/01234567-89ab-4cde-8f01-23456789abcd"} {
		a := e.get(path)
		p := a.problem(t)
		if a.status != 503 || p.Code != CodeNotReady || p.Detail != "Rynek API nie jest gotowe" || a.header.Get("Retry-After") != "5" {
			t.Errorf("%s not ready: %d %+v, Retry-After %q", path, a.status, p, a.header.Get("Retry-After"))
		}
	}
}

func TestTokenRules(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 20}, Options{Token: "s3cret-token"})
	for _, c := range []struct {
		path   string
		header []string
		status int
	}{
		{"/api/stats", nil, 401},
		{"/api/stats", []string{"Authorization: Bearer wrong"}, 401},
		{"/api/stats", []string{"Authorization: Basic s3cret-token"}, 401},
		{"/api/stats", []string{"Authorization: Bearer s3cret-token"}, 200},
		{"/api/stats", []string{"Authorization: bearer s3cret-token"}, 200},
		{"/api/stats?access_token=s3cret-token", nil, 401},
		{"/api/health", nil, 401},
		{"/", nil, 200}, // the page holds no data; its requests carry the token
	} {
		a := e.get(c.path, c.header...)
		if a.status != c.status {
			t.Errorf("%s %v: %d, want %d", c.path, c.header, a.status, c.status)
		}
		if c.status == 401 && (a.problem(t).Code != CodeUnauthorized || a.header.Get("WWW-Authenticate") == "") {
			t.Errorf("%s: 401 without its problem or challenge", c.path)
		}
	}
	s := e.stream("/api/events?access_token=s3cret-token")
	s.res.Body.Close()
	if a := e.get("/api/events?access_token=nope"); a.status != 401 {
		t.Errorf("stream with a wrong token: %d", a.status)
	}
	for _, c := range []struct {
		addr, token string
		ok          bool
	}{
		{"127.0.0.1:8080", "", true},
		{"[::1]:8080", "", true},
		{"localhost:8080", "", true},
		{"0.0.0.0:8080", "", false},
		{":8080", "", false},
		{"192.168.1.5:80", "", false},
		{"0.0.0.0:8080", "t", true},
		{"nonsense", "", false},
	} {
		if err := CheckExposure(c.addr, c.token); (err == nil) != c.ok {
			t.Errorf("CheckExposure(%q, %q) = %v", c.addr, c.token, err)
		}
	}
}

func TestCORS(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 20}, Options{CORSOrigins: []string{"https://rynek.example"}})
	ok := e.get("/api/stats", "Origin: https://rynek.example")
	if ok.header.Get("Access-Control-Allow-Origin") != "https://rynek.example" || ok.header.Get("Vary") != "Origin" ||
		ok.header.Get("Access-Control-Expose-Headers") != "ETag, Retry-After" {
		t.Errorf("allowed origin: %v", ok.header)
	}
	other := e.get("/api/stats", "Origin: https://evil.example")
	if other.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("another origin was allowed: %v", other.header)
	}
	pre := e.do("OPTIONS", "/api/listings", "Origin: https://rynek.example", "Access-Control-Request-Method: GET")
	if pre.status != 204 || pre.header.Get("Access-Control-Allow-Headers") != "Authorization, If-None-Match, Last-Event-ID" {
		t.Errorf("preflight: %d %v", pre.status, pre.header)
	}
	none := newEnv(t, seed.Options{Listings: 5}, Options{})
	if h := none.get("/api/stats", "Origin: https://rynek.example").header; h.Get("Access-Control-Allow-Origin") != "" || strings.Contains(strings.Join(h.Values("Vary"), ","), "Origin") {
		t.Errorf("CORS without --api-cors-origin: %v", h)
	}
}

func TestRateLimit(t *testing.T) {
	now := fixedNow
	// The limiter's clock is hours behind the real one: answers' write
	// deadlines must not follow it.
	e := newEnv(t, seed.Options{Listings: 5}, Options{RatePerSecond: 2, Burst: 3, Now: func() time.Time { return now }})
	for i := range 3 {
		if a := e.get("/api/stats"); a.status != 200 {
			t.Fatalf("request %d: %d", i, a.status)
		}
	}
	a := e.get("/api/health")
	if p := a.problem(t); a.status != 429 || p.Code != CodeRateLimited || a.header.Get("Retry-After") != "1" {
		t.Fatalf("over the limit: %d %+v, Retry-After %q", a.status, p, a.header.Get("Retry-After"))
	}
	now = now.Add(time.Second) // two tokens back
	for i := range 2 {
		if a := e.get("/api/health"); a.status != 200 {
			t.Fatalf("after a second, request %d: %d", i, a.status)
		}
	}
	if a := e.get("/"); a.status != 200 {
		t.Errorf("the board page is not rate limited: %d", a.status)
	}
}

// TestHostileInput: nothing a client sends gets a 500 or a panic; bad
// input is a 4xx problem.
func TestHostileInput(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 50}, Options{})
	long := strings.Repeat("a", 2000)
	for _, c := range []struct {
		path   string
		status int
	}{
		{"/api/listings?limit=-1", 400},
		{"/api/listings?limit=99999999999999999999999", 400},
		{"/api/listings?limit=%2B5", 400},
		{"/api/listings?limit=", 400},
		{"/api/listings?cursor=" + strings.Repeat("A", 200), 400},
		{"/api/listings?cursor=AQ", 400},
		{"/api/listings?cursor=AUg", 400},
		{"/api/listings?cursor=%00%01", 400},
		{"/api/listings?cursor=" + encodeHistoryCursor(5), 400},
		{"/api/history?cursor=" + encodeListingCursor(market.Cursor{ID: 5}, market.Query{}), 400},
		{"/api/history?cursor=" + encodeHistoryCursor(1<<35), 400},
		{"/api/listings?sort=price&cursor=" + encodeListingCursor(market.Cursor{ID: 5}, market.Query{}), 400},
		{"/api/listings?q=" + long, 400},
		{"/api/listings?q=%ff%fe", 400},
		{"/api/listings?q=%", 400},
		{"/api/listings?q=a;b", 400},
		{"/api/listings?seller=not-a-uuid", 400},
		{"/api/listings?seller=00000000-0000-0000-0000-000000000000", 404},
		{"/api/listings?seller={01234567-89ab-4cde-8f01-23456789abcd}", 400},
		{"/api/listings?material=" + long, 400},
		{"/api/listings?min_price=-5", 400},
		{"/api/listings?min_price=NaN", 400},
		{"/api/listings?max_price=1e400", 400},
		{"/api/listings/-1", 400},
		{"/api/listings/01", 400},
		{"/api/listings/%2B1", 400},
		{"/api/listings/99999999999", 400},
		{"/api/listings/1%2F2", 400},
		{"/api/listings/1%00", 400},
		{"/api/listings/1.5", 400},
		{"/api/players/..%2F..%2Fetc%2Fpasswd", 400},
		{"/api/players/01234567-89AB-4CDE-8F01-23456789ABCD-", 400},
		{"/api/players/urn:uuid:01234567-89ab-4cde-8f01-23456789abcd", 400},
		{"/api/price-history/..%2f..%2fsecret", 400},
		{"/api/price-history/" + long, 404},
		{"/api/price-history/%ff", 404},
		{"/api/../api/listings", 400},
		{"/api//listings", 400},
		{"/api/listings/./1", 400},
		{"/api/events?since=-1", 400},
		{"/api/events?since=99999999999999999999999", 400},
		{"/api/events?since=1&since=2", 400},
		{"/api/stats?" + strings.Repeat("x=1&", 3000), 414},
		{"/?x=1", 200},
	} {
		a := e.get(c.path)
		if a.status != c.status {
			t.Errorf("%.80s: %d, want %d (%s)", c.path, a.status, c.status, a.body)
		}
		if a.status >= 400 && a.header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%.80s: %d without a problem body", c.path, a.status)
		}
	}
	if a := e.get("/api/events", "Last-Event-ID: x"); a.status != 400 || a.problem(t).Parameter != "Last-Event-ID" {
		t.Errorf("bad Last-Event-ID: %d %s", a.status, a.body)
	}
	if a := e.get("/api/events?since=999999999"); a.status != 200 {
		t.Errorf("a since ahead of the market: %d (want a stream with a reset)", a.status)
	}
}

// TestProfileRating: a player no buyer has rated has "rating": null, not
// 0 (which would read as the worst mark); once rated, the mean.
func TestProfileRating(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 50}, Options{})
	// Every seeded seller has a rated sale: a new player sells one.
	newcomer, err := e.svc.AddPlayer(market.NewPlayer{Name: "Newcomer", Items: []market.ItemStack{{Material: "OAK_LOG", Amount: 16}}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := e.svc.GetPlayer(newcomer.ID)
	if err != nil {
		t.Fatal(err)
	}
	l, err := e.svc.SellItem(newcomer, *st.Inventory[0], 5)
	if err != nil {
		t.Fatal(err)
	}
	buyer, err := e.svc.PlayerByName("Admin")
	if err != nil {
		t.Fatal(err)
	}
	tx, err := e.svc.Buy(buyer, l.ID)
	if err != nil {
		t.Fatal(err)
	}
	path := "/api/players/" + tx.Seller.String()
	c := loadContract(t, e)
	if a := c.check(t, e, 200, path); !strings.Contains(string(a.body), `"rating":null,"ratings":0`) {
		t.Errorf("unrated: %s", a.body)
	}
	if _, err := e.svc.Rate(tx.Buyer, tx.ID, 4); err != nil {
		t.Fatal(err)
	}
	if a := c.check(t, e, 200, path); !strings.Contains(string(a.body), `"rating":4,"ratings":1`) {
		t.Errorf("rated 4 stars: %s", a.body)
	}
}

// TestPriceHistoryBuckets: each span's buckets are exactly 1 h, 6 h or a
// day wide (they were a millisecond wider and drifted), start on UTC
// boundaries, end with the bucket now falls in, and their volumes are the
// sums of the transactions' prices to the cent.
func TestPriceHistoryBuckets(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 300, Days: 30}, Options{})
	e.clock.Advance(4*time.Hour + 40*time.Minute + 4760*time.Millisecond) // 16:40:04.760
	now := e.clock.Now()
	done, err := e.svc.GetCompletedTransactions()
	if err != nil {
		t.Fatal(err)
	}
	mat := done[len(done)-1].Item.Material
	for _, c := range []struct {
		span    string
		width   time.Duration
		buckets int
	}{{"24h", time.Hour, 24}, {"7d", 6 * time.Hour, 28}, {"30d", 24 * time.Hour, 30}} {
		var ph wire.PriceHistory
		e.getJSON("/api/price-history/"+mat+"?span="+c.span, &ph)
		if ph.BucketMs != c.width.Milliseconds() || len(ph.Buckets) != c.buckets {
			t.Errorf("%s: %d buckets of %d ms, want %d of %d", c.span, len(ph.Buckets), ph.BucketMs, c.buckets, c.width.Milliseconds())
		}
		for i, b := range ph.Buckets {
			if b.Start.UnixMilli()%ph.BucketMs != 0 || i > 0 && b.Start.Sub(ph.Buckets[i-1].Start.Time) != c.width {
				t.Errorf("%s: bucket %d starts at %s", c.span, i, b.Start)
			}
		}
		first, last := ph.Buckets[0].Start.Time, ph.Buckets[len(ph.Buckets)-1].Start.Time
		if now.Before(last) || !now.Before(last.Add(c.width)) {
			t.Errorf("%s: the last bucket starts at %s; now is %s", c.span, last, now)
		}
		var want market.Money
		sales := 0
		for _, tx := range done {
			at := tx.Timeline[len(tx.Timeline)-1].At
			if tx.Item.Material == mat && !at.Before(first) && !at.After(now) {
				want += market.Money(math.Round(tx.Price * 100))
				sales++
			}
		}
		var got market.Money
		count := 0
		for _, b := range ph.Buckets {
			m, err := market.ParsePrice(b.Volume, 0, 1<<62)
			if err != nil && b.Volume != "0.00" {
				t.Fatal(err)
			}
			got += m
			count += b.Count
		}
		if got != want || count != sales {
			t.Errorf("%s: buckets hold %d sales for %s; the transactions are %d for %s", c.span, count, market.FormatMoney(got), sales, market.FormatMoney(want))
		}
	}
}

// TestServersOwnErrorsAreProblems: what net/http answers before any route
// (headers past the limit, a request without Host, an unknown
// Transfer-Encoding) is an RFC 9457 problem like every other error, not
// plain text; headers within the limit are served.
func TestServersOwnErrorsAreProblems(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 5}, Options{})
	raw := func(request string) *http.Response {
		t.Helper()
		c, err := net.Dial("tcp", e.srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := io.WriteString(c, request); err != nil {
			t.Fatal(err)
		}
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body = io.NopCloser(bytes.NewReader(body))
		return res
	}
	big := func(n int) string { return "X-Padding: " + strings.Repeat("a", n) + "\r\n" }
	for _, c := range []struct {
		name, request string
		status        int
		code, detail  string
	}{
		{"headers over 16 KiB", "GET /api/health HTTP/1.1\r\nHost: x\r\n" + big(16<<10) + "\r\n", 431, CodeHeadersTooLarge,
			"the request's headers are over 16 KiB; send fewer or shorter ones"},
		{"no Host", "GET /api/health HTTP/1.1\r\n\r\n", 400, CodeBadRequest, "the request is not valid HTTP: missing required Host header"},
		{"bad Transfer-Encoding", "GET /api/health HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: zip\r\n\r\n", 501, CodeBadRequest,
			"the request's Transfer-Encoding is not one this server reads"},
		{"HTTP/3.0", "GET /api/health HTTP/3.0\r\nHost: x\r\n\r\n", 505, CodeBadRequest, "the request is not HTTP/1.x or HTTP/2"},
	} {
		res := raw(c.request)
		a := answer{status: res.StatusCode, header: res.Header}
		a.body, _ = io.ReadAll(res.Body)
		p := a.problem(t)
		if a.status != c.status || p.Status != c.status || p.Code != c.code || p.Detail != c.detail || p.Title != http.StatusText(c.status) {
			t.Errorf("%s: %d %+v\nwant %d %s %q", c.name, a.status, p, c.status, c.code, c.detail)
		}
	}
	if res := raw("GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + big(16<<10-100) + "\r\n"); res.StatusCode != 200 {
		t.Errorf("a head just under 16 KiB: %d", res.StatusCode)
	}
}

// TestHealthVersions: /api/health's release is the program's version and
// stays; its version is the market's, the event seq, which a change moves;
// the served document says which is which.
func TestHealthVersions(t *testing.T) {
	e := newEnv(t, seed.Options{Listings: 20}, Options{})
	var h Health
	e.getJSON("/api/health", &h)
	if h.Release != e.svc.ReleaseVersion() || h.Version != e.svc.Version() {
		t.Fatalf("health %+v; release %s, version %d", h, e.svc.ReleaseVersion(), e.svc.Version())
	}
	page, err := e.svc.Query(market.Query{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	l := page.Listings[0]
	if err := e.svc.RemoveListing(l.ID, market.Player{ID: l.Seller}); err != nil {
		t.Fatal(err)
	}
	var after Health
	e.getJSON("/api/health", &after)
	if after.Release != h.Release || after.Version <= h.Version {
		t.Errorf("after a change: release %s (was %s), version %d (was %d)", after.Release, h.Release, after.Version, h.Version)
	}
	var doc struct {
		Components struct {
			Schemas struct {
				Health struct {
					Properties map[string]struct {
						Description string `json:"description"`
					} `json:"properties"`
				} `json:"Health"`
			} `json:"schemas"`
		} `json:"components"`
	}
	e.getJSON("/api/openapi.json", &doc)
	props := doc.Components.Schemas.Health.Properties
	if v := props["version"].Description; !strings.Contains(v, "the market's version: the sequence number of the newest event") || !strings.Contains(v, "Not the program's version: that is release") {
		t.Errorf("version is described as %q", v)
	}
	if r := props["release"].Description; !strings.Contains(r, "Rynek's own version, the program's release") {
		t.Errorf("release is described as %q", r)
	}
}

package seed_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/playertext"
	"github.com/rynek/rynek/market/sqlite"
	"github.com/rynek/rynek/seed"
)

var now = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

func openStore(t testing.TB) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(filepath.Join(t.TempDir(), "market.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// load seeds a fresh store and returns a ready service on it.
func load(t testing.TB, opts seed.Options) (*market.Service, seed.Result) {
	t.Helper()
	st := openStore(t)
	res, err := seed.Load(st, opts)
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	svc := market.New(st, market.Config{Clock: market.NewManualClock(opts.Now)})
	svc.BindMainThread()
	if err := svc.Enable(); err != nil {
		svc.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc, res
}

func TestLoad(t *testing.T) {
	opts := seed.Options{Listings: 2000, Rand: 7, Now: now}
	var calls, last int
	opts.Progress = func(done, total int) {
		calls++
		if done < last || done > total {
			t.Errorf("progress went %d -> %d of %d", last, done, total)
		}
		last = done
	}
	svc, res := load(t, opts)
	t.Logf("result: %+v, progress calls: %d", res, calls)
	if calls == 0 || calls > 110 {
		t.Errorf("progress called %d times", calls)
	}
	if res.Players != 300 || res.Listings != 2000 {
		t.Errorf("result %+v", res)
	}
	if res.Transactions != 30*100 || res.Completed+res.Failed+res.RolledBack != res.Transactions {
		t.Errorf("transactions %+v", res)
	}
	if res.Failed == 0 || res.RolledBack == 0 || res.Completed < res.Transactions*9/10 {
		t.Errorf("state mix %+v", res)
	}

	n, err := svc.GetActiveListingsCount()
	if err != nil || n != 2000 {
		t.Fatalf("GetActiveListingsCount = %d, %v", n, err)
	}
	for _, c := range svc.GetCategories() {
		p, err := svc.Query(market.Query{Category: c, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%-16s %5d", c, p.Total)
		if p.Total == 0 {
			t.Errorf("category %s has no listings", c)
		}
	}

	all, err := svc.GetListings()
	if err != nil {
		t.Fatal(err)
	}
	var named, lored, enchanted, books, auctions, soon int
	blacklist := map[string]bool{}
	for _, k := range market.DefaultConfig().Blacklist {
		blacklist[k] = true
	}
	for i, l := range all {
		if strings.ContainsRune(l.Item.DisplayName, '§') {
			named++
		}
		if len(l.Item.Lore) > 0 {
			lored++
		}
		if len(l.Item.Enchantments) > 0 {
			enchanted++
		}
		if l.Item.Material == "ENCHANTED_BOOK" {
			books++
			if n := len(l.Item.Enchantments); n < 1 || n > 2 {
				t.Errorf("enchanted book #%d has %d enchantments", l.ID, n)
			}
		}
		if blacklist[l.Item.Material] {
			t.Errorf("listing #%d sells blacklisted %s", l.ID, l.Item.Material)
		}
		if l.Price < 1 || l.Price > 1_000_000 {
			t.Errorf("listing #%d price %v", l.ID, l.Price)
		}
		if l.Auction != nil {
			auctions++
			if !l.ExpiresAt.After(now) || l.ExpiresAt.After(now.Add(13*time.Hour)) || l.ExpiresAt.Sub(l.CreatedAt) > 7*24*time.Hour {
				t.Errorf("auction #%d created %v ends %v: not within the next 13 hours and a week of its start", l.ID, l.CreatedAt, l.ExpiresAt)
			}
			if l.ExpiresAt.Before(now.Add(2 * time.Minute)) {
				soon++
			}
		} else if !l.CreatedAt.After(now.Add(-7*24*time.Hour)) || l.CreatedAt.After(now) || !l.ExpiresAt.Equal(l.CreatedAt.Add(7*24*time.Hour)) {
			t.Errorf("listing #%d created %v expires %v", l.ID, l.CreatedAt, l.ExpiresAt)
		}
		if i > 0 && l.CreatedAt.After(all[i-1].CreatedAt) {
			t.Errorf("listing #%d is newer than #%d but has a lower id", l.ID, all[i-1].ID)
		}
	}
	t.Logf("named %d, lore %d, enchanted %d, enchanted books %d", named, lored, enchanted, books)
	if auctions != res.Auctions || auctions < len(all)/50 || auctions > len(all)/40 || soon != 3 {
		t.Errorf("%d auctions (the result says %d), %d ending within two minutes; want about one listing in 40 and 3", auctions, res.Auctions, soon)
	}
	if named < 80 || named > 250 {
		t.Errorf("%d named listings, want about 8%%", named)
	}
	if lored < 40 || lored > 180 {
		t.Errorf("%d listings with lore, want about 5%%", lored)
	}
	if enchanted == 0 || books == 0 {
		t.Errorf("enchanted %d, books %d", enchanted, books)
	}

	done, err := svc.GetCompletedTransactions()
	if err != nil || len(done) != res.Completed {
		t.Fatalf("GetCompletedTransactions: %d (want %d), %v", len(done), res.Completed, err)
	}
	for _, tx := range done {
		if tx.Buyer == tx.Seller {
			t.Fatalf("transaction %s: buyer is the seller", tx.ID)
		}
		if tx.CreatedAt().Before(now.Add(-30*24*time.Hour)) || !tx.CreatedAt().Before(now) {
			t.Fatalf("transaction %s at %v", tx.ID, tx.CreatedAt())
		}
	}
	vol, err := svc.GetMarketVolume()
	if err != nil || vol <= 0 {
		t.Fatalf("GetMarketVolume = %v, %v", vol, err)
	}
	stats, err := svc.Stats(5)
	if err != nil {
		t.Fatal(err)
	}
	if len(stats.TopSellers) != 5 {
		t.Errorf("Stats(5) has %d top sellers", len(stats.TopSellers))
	}
	fees, _ := svc.FeeBalance()
	if fees <= 0 || fees >= vol {
		t.Errorf("fee balance %v of volume %v", fees, vol)
	}

	// Price history has shape: the monthly window has sales of diamonds.
	ph, err := svc.PriceHistory("DIAMOND", 30*24*time.Hour, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if ph.Windows[2].Sales == 0 {
		t.Errorf("no diamond sales in 30 days")
	}

	// Players: Admin first with market.admin, names valid and unique.
	players, err := svc.Players()
	if err != nil {
		t.Fatal(err)
	}
	names := seed.Names(opts)
	if len(players) != 300 || len(names) != 300 || names[0] != "Admin" {
		t.Fatalf("%d players, %d names, first %q", len(players), len(names), names[0])
	}
	admin, err := svc.PlayerByName("Admin")
	if err != nil || !admin.HasPermission(market.PermAdmin) {
		t.Fatalf("Admin: %+v, %v", admin, err)
	}
	seen := map[string]bool{}
	admins := 0
	for _, p := range players {
		// The game joins each player under their name: the market's rule
		// for names holds it (and an unchanged player writes nothing).
		if _, _, err := svc.Join(p.ID, p.Name, p.Permissions); err != nil {
			t.Errorf("player %q cannot join: %v", p.Name, err)
		}
		if seen[playertext.Fold(p.Name)] {
			t.Errorf("duplicate name %q", p.Name)
		}
		seen[playertext.Fold(p.Name)] = true
		if p.HasPermission(market.PermAdmin) {
			admins++
		}
		ps, err := svc.GetPlayer(p.ID)
		if err != nil {
			t.Fatal(err)
		}
		filled := 0
		for _, s := range ps.Inventory {
			if s != nil {
				filled++
			}
		}
		if filled < 10 || filled > 32 {
			t.Errorf("%s has %d filled slots", p.Name, filled)
		}
		if ps.Balance < 100 || ps.Balance > 100_000 {
			t.Errorf("%s has balance %v", p.Name, ps.Balance)
		}
	}
	for _, n := range names {
		if !seen[playertext.Fold(n)] {
			t.Errorf("Names() gives %q, not a player", n)
		}
	}
	if admins < 2 || admins > 25 {
		t.Errorf("%d admins", admins)
	}

	// Search finds a Polish seller, as players type the name.
	hits, err := svc.Search("lukasz")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, l := range hits {
		if strings.HasPrefix(l.SellerName, "Lukasz") {
			found = true
			break
		}
	}
	if !found {
		t.Errorf("search \"lukasz\" found %d listings, none by Lukasz…", len(hits))
	}

	a, err := svc.Audit()
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Problems) > 0 {
		t.Fatalf("audit problems: %v", a.Problems[:min(5, len(a.Problems))])
	}
	if a.Listings != 2000 || a.Money != res.Money {
		t.Errorf("audit %d listings, money %d; result money %d", a.Listings, a.Money, res.Money)
	}
}

// snapshot writes down the whole market: players with their permissions,
// balances, inventories, mailboxes, favourites, alerts and notifications;
// the listings; every transaction with its timeline, rating and code.
func snapshot(t *testing.T, opts seed.Options) []string {
	svc, _ := load(t, opts)
	must(t, svc.WaitHistory())
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	players, err := svc.Players()
	must(t, err)
	for _, p := range players {
		st, err := svc.GetPlayer(p.ID)
		must(t, err)
		add("player %s %s %v %.2f", p.ID, p.Name, p.Permissions, st.Balance)
		for i, s := range st.Inventory {
			if s != nil {
				add("  slot %d %+v", i, *s)
			}
		}
		for _, m := range st.Mailbox {
			add("  mail %+v", m)
		}
		favs, err := svc.Favorites(p.ID)
		must(t, err)
		for _, l := range favs {
			add("  favourite #%d", l.ID)
		}
		alerts, err := svc.Alerts(p.ID)
		must(t, err)
		for _, a := range alerts {
			add("  alert %+v", a)
		}
		notes, err := svc.Notifications(p.ID, market.MaxNotificationsPage)
		must(t, err)
		for _, n := range notes.Notifications {
			add("  notification %+v", n)
		}
	}
	all, err := svc.GetListings()
	must(t, err)
	for _, l := range all {
		if a := l.Auction; a != nil {
			add("  auction %+v", *a) // its fields, not the pointer's address
			l.Auction = nil
		}
		add("listing %+v", l)
	}
	page, err := svc.Transactions(market.TxQuery{AllStates: true, Limit: 10_000_000})
	must(t, err)
	for _, tx := range page.Transactions {
		add("transaction %+v", tx)
	}
	return out
}

// TestDeterministic: the same options give the same market, down to every
// id; another seed gives another.
func TestDeterministic(t *testing.T) {
	opts := seed.Options{Listings: 500, Players: 50, Days: 2, Rand: 42, Now: now}
	a := snapshot(t, opts)
	b := snapshot(t, opts)
	if len(a) != len(b) {
		t.Fatalf("%d lines, then %d", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("line %d differs:\n%s\n%s", i, a[i], b[i])
		}
	}
	opts.Rand = 43
	c := snapshot(t, opts)
	same := 0
	for i := range min(len(a), len(c)) {
		if a[i] == c[i] {
			same++
		}
	}
	if same > 0 {
		t.Errorf("%d of %d lines equal with a different seed", same, len(a))
	}
	n1, n2 := seed.Names(seed.Options{Rand: 42}), seed.Names(seed.Options{Rand: 43})
	if len(n1) != 300 || strings.Join(n1, ",") == strings.Join(n2, ",") {
		t.Errorf("names do not depend on the seed")
	}
}

// TestSameDemoAtAnotherTime: the same options made at another moment give
// the same market shifted in time: every time (a listing's, a bid's, a
// transaction's and the time in its id, a mail's, an alert's) the same
// distance before its now. The history's times followed the wall clock's
// hour of the day: a purchase 3 h 08 m before the start in one run was
// 3 h 51 m before it in the next.
func TestSameDemoAtAnotherTime(t *testing.T) {
	opts := seed.Options{Listings: 500, Players: 50, Days: 3, Rand: 42, Now: now}
	a := relativeSnapshot(t, opts)
	opts.Now = now.Add(29*time.Hour + 8*time.Minute + 17*time.Second + 123*time.Millisecond)
	b := relativeSnapshot(t, opts)
	if len(a) != len(b) {
		t.Fatalf("%d lines, then %d", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("line %d differs:\n%s\n%s", i, a[i], b[i])
		}
	}
}

var (
	timeRE  = regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)? [+-]\d{4} [A-Z0-9+-]+`)
	uuid7RE = regexp.MustCompile(`\b[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
	// A refund's unix ms, as the store writes it in the error code.
	refundRE = regexp.MustCompile(`REFUND:\d+`)
)

// relativeSnapshot is snapshot with every time written as its distance
// from opts.Now, and the times in each version 7 (transaction) id and
// refund code too.
func relativeSnapshot(t *testing.T, opts seed.Options) []string {
	lines := snapshot(t, opts)
	times := 0
	for i, line := range lines {
		line = timeRE.ReplaceAllStringFunc(line, func(s string) string {
			at, err := time.Parse("2006-01-02 15:04:05.999999999 -0700 MST", s)
			if err != nil {
				t.Fatalf("%q: %v", s, err)
			}
			times++
			return "now" + at.Sub(opts.Now).String()
		})
		line = uuid7RE.ReplaceAllStringFunc(line, func(s string) string {
			ms, err := strconv.ParseInt(strings.ReplaceAll(s[:13], "-", ""), 16, 64)
			if err != nil {
				t.Fatalf("%q: %v", s, err)
			}
			return "now" + time.UnixMilli(ms).Sub(opts.Now).String() + s[13:]
		})
		line = refundRE.ReplaceAllStringFunc(line, func(s string) string {
			ms, err := strconv.ParseInt(s[len("REFUND:"):], 10, 64)
			if err != nil {
				t.Fatalf("%q: %v", s, err)
			}
			return "REFUND:now" + time.UnixMilli(ms).Sub(opts.Now).String()
		})
		lines[i] = line
	}
	if times < len(lines)/2 {
		t.Fatalf("%d times in %d lines: the snapshot's times are not found", times, len(lines))
	}
	return lines
}

func TestOptionsErrors(t *testing.T) {
	st := openStore(t)
	defer st.Close()
	if _, err := seed.Load(st, seed.Options{Players: 1}); err == nil {
		t.Error("1 player accepted")
	}
	if _, err := seed.Load(st, seed.Options{ListingTTL: time.Minute}); err == nil {
		t.Error("1-minute TTL accepted")
	}
}

// loadLarge loads 1M listings and reports the times.
func loadLarge(tb testing.TB) (gen, enable time.Duration) {
	st := openStore(tb)
	res, err := seed.Load(st, seed.Options{Listings: 1_000_000, Rand: 1, Now: now})
	if err != nil {
		st.Close()
		tb.Fatal(err)
	}
	t0 := time.Now()
	svc := market.New(st, market.Config{Clock: market.NewManualClock(now)})
	svc.BindMainThread()
	if err := svc.Enable(); err != nil {
		svc.Close()
		tb.Fatal(err)
	}
	enable = time.Since(t0)
	defer svc.Close()
	n, err := svc.GetActiveListingsCount()
	if err != nil || n != 1_000_000 {
		tb.Fatalf("GetActiveListingsCount = %d, %v", n, err)
	}
	tb.Logf("1M listings + %d transactions: generate+write %v, Enable %v", res.Transactions, res.Took, enable)
	return res.Took, enable
}

func TestLoadLarge(t *testing.T) {
	if testing.Short() || os.Getenv("RYNEK_LARGE") == "" {
		t.Skip("set RYNEK_LARGE=1 to load 1,000,000 listings")
	}
	loadLarge(t)
}

func BenchmarkLoad1M(b *testing.B) {
	const n = 1_000_000
	var took time.Duration
	rows := 0
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		st, err := sqlite.Open(filepath.Join(b.TempDir(), "market.db"), sqlite.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res, err := seed.Load(st, seed.Options{Listings: n, Rand: 1, Now: now})
		if err != nil {
			b.Fatal(err)
		}
		took += res.Took
		rows += res.Players + res.Listings + res.Transactions
		b.StopTimer()
		st.Close()
		b.StartTimer()
	}
	// The default history of a 1M market is 600,000 transactions, written
	// in the same time: listings/s is per listing of the whole load.
	b.ReportMetric(float64(n*b.N)/took.Seconds(), "listings/s")
	b.ReportMetric(float64(rows)/took.Seconds(), "rows/s")
}

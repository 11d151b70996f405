package grzybcio

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
	"github.com/rynek/rynek/seed"
)

// now is the fixtures' present: listing #3 of testdata/server was created
// ten days before it, so with the default seven days it has expired.
var now = time.UnixMilli(1795176000000)

var (
	grzybek = uuid.MustParse("6f1d2c3b-4a59-4e8f-9a1b-0c2d3e4f5a61")
	kasia   = uuid.MustParse("7a2e3d4c-5b6a-4f90-8b2c-1d3e4f5a6b72")
	bartek  = uuid.MustParse("8b3f4e5d-6c7b-4a01-9c3d-2e4f5a6b7c83")
)

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func openStore(t testing.TB, path string) *sqlite.Store {
	t.Helper()
	st, err := sqlite.Open(path, sqlite.Options{})
	must(t, err)
	t.Cleanup(func() { st.Close() })
	return st
}

func newStore(t testing.TB) *sqlite.Store {
	return openStore(t, filepath.Join(t.TempDir(), "market.db"))
}

func importDir(t testing.TB, st market.Store, dir string, o ImportOptions) *Report {
	t.Helper()
	o.Dir, o.Now = dir, now
	r, err := Import(st, o)
	must(t, err)
	return r
}

func contents(t testing.TB, st market.Store) *market.StoreContents {
	t.Helper()
	c, err := market.ReadStore(st)
	must(t, err)
	return c
}

func TestImportServerFiles(t *testing.T) {
	st := newStore(t)
	r := importDir(t, st, "testdata/server", ImportOptions{})
	counts := map[string]int{"players": r.Players, "listings": r.Listings, "expired": r.Expired, "outbox": r.Outbox,
		"pending returns": r.PendingReturns, "mail": r.Mail, "transactions": r.Transactions, "flagged": r.Flagged,
		"rounded": r.Rounded, "skipped": r.Count(NoteSkipped), "favorites": r.Favorites, "alerts": r.Alerts,
		"ratings": r.Ratings, "sale notices": r.SaleNotices, "renumbered": r.Renumbered, "refused": r.Refused}
	want := map[string]int{"players": 3, "listings": 4, "expired": 1, "outbox": 1, "pending returns": 1, "mail": 2,
		"transactions": 4, "flagged": 1, "rounded": 3, "skipped": 7, "favorites": 2, "alerts": 1, "ratings": 1,
		"sale notices": 1, "renumbered": 0, "refused": 1}
	if !reflect.DeepEqual(counts, want) {
		t.Errorf("counts %v\nwant   %v", counts, want)
	}
	var notes []string
	for _, n := range r.Notes {
		notes = append(notes, strings.TrimPrefix(n.Where, "testdata/server/")+": "+string(n.Kind)+": "+n.Text)
	}
	// The notes come in the files' order, as the import reads them.
	wantNotes := []string{
		"listings.yml:2:3: rounded: listing #1: price 1500.005 rounded to 1500.01",
		"listings.yml:32:3: rounded: listing #3: price 99.999 rounded to 100.00",
		"listings.yml:32:3: expired: listing #3 expired on 2026-11-17 12:00 (created 2026-11-10 12:00 + 7 days): to its seller's mailbox",
		"listings.yml:53:9: skipped: listing #4 skipped: its item is air",
		"listings.yml:66:12: skipped: listing #5 skipped: its item's amount is 0",
		"listings.yml:74:9: skipped: listing #6 skipped: it has no item",
		"listings.yml:107:3: refused: listing #9 not listed: its price is \"abc\", not a number; its item (1xDIRT) is in its seller's mailbox",
		"listings.yml:118:3: skipped: listing #10 skipped: it is a \"com.example.other.Auction\", not a com.example.marketplace.model.MarketListing",
		"market-data.yml:46:3: skipped: rating of transaction 6d5e4f3a-7b8c-4d9e-8f0a-1b2c3d4e5f67 skipped: its stars are \"7\", not 1 to 5",
		"market-data.yml:73:3: flagged: transaction 4b3c2d1e-5f6a-4b7c-8d8e-9f0a1b2c3d45 was left SELLER_PAID by the plugin: kept as FAILED history (IMPORTED_UNFINISHED:SELLER_PAID), no money moved",
		"market-data.yml:128:3: rounded: transaction 6d5e4f3a-7b8c-4d9e-8f0a-1b2c3d4e5f67: price 10.004 rounded to 10.00",
		"market-data.yml:149:3: skipped: transaction 7e6f5a4b-8c9d-4e0f-9a1b-2c3d4e5f6a78 skipped: bulk: buyer and seller are the same player",
		"market-data.yml:41:3: skipped: rating of transaction 9f9f9f9f-4e5f-4a6b-9c7d-8e9f0a1b2c34 skipped: no such transaction in the files",
	}
	if !reflect.DeepEqual(notes, wantNotes) {
		t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(notes, "\n"), strings.Join(wantNotes, "\n"))
	}

	c := contents(t, st)
	if c.NextListingID != 42 {
		t.Errorf("next listing id %d, want the file's 42", c.NextListingID)
	}
	var ids []int
	for _, l := range c.Listings {
		ids = append(ids, l.ID)
	}
	if !slices.Equal(ids, []int{1, 2, 7, 8}) {
		t.Fatalf("listing ids %v, want 1 2 7 8", ids)
	}
	sword := c.Listings[0]
	if sword.Seller != grzybek || sword.SellerName != "Grzybek" || sword.Price != 1500.01 ||
		sword.CreatedAt != time.UnixMilli(1795089600000).UTC() || sword.ExpiresAt != sword.CreatedAt.Add(7*24*time.Hour) {
		t.Errorf("listing #1 %+v", sword)
	}
	wantSword := market.ItemStack{Material: "DIAMOND_SWORD", Amount: 1, DisplayName: "§6Legendarny Miecz Łowcy",
		Lore:         []string{"§7Wykuty w ogniu Netheru przez mistrza kowalskiego z Zakopanego, który nie zdradził nikomu swojej receptury", "§7Zaklęty §bna zawsze"},
		Enchantments: []market.Enchantment{{Key: "sharpness", Level: 5}, {Key: "unbreaking", Level: 3}}}
	got := sword.Item
	got.ID, got.Original = uuid.Nil, market.ItemOriginal{}
	if !reflect.DeepEqual(got, wantSword) {
		t.Errorf("sword\n%+v\nwant\n%+v", got, wantSword)
	}
	if sword.Item.Original.Format != market.OriginalBukkitYAML || !strings.Contains(sword.Item.Original.Data, "minecraft:damage: \"120\"") {
		t.Errorf("the sword's original is not kept whole:\n%s", sword.Item.Original.Data)
	}
	ruby := c.Listings[2].Item
	if ruby.Material != "nexo:ruby_sword" || ruby.DisplayName != "§cRubinowy miecz" || ruby.MaxStack != 1 {
		t.Errorf("ruby sword %+v", ruby)
	}
	if book := c.Listings[3]; book.SellerName != "Bartek" || len(book.Item.Enchantments) != 1 || book.Item.Enchantments[0] != (market.Enchantment{Key: "sharpness", Level: 5}) {
		t.Errorf("book %+v", book)
	}

	mail := map[uuid.UUID][]string{}
	for _, m := range c.Mail {
		mail[m.Owner] = append(mail[m.Owner], fmt.Sprintf("%s %dx%s %q %s %.2f", m.Reason, m.Item.Amount, m.Item.Material, m.Item.DisplayName,
			m.CreatedAt.Format(time.DateOnly), m.PreviousPrice))
	}
	wantMail := map[uuid.UUID][]string{
		grzybek: {`expired 3xGOLDEN_APPLE "§6§lZłote jabłko" 2026-11-17 100.00`, `expired 32xIRON_INGOT "" 2026-11-20 20.00`},
		kasia:   {`removed 5xBREAD "" 2026-11-17 9.99`, `overflow 1xPOTION "§dMikstura §lżycia" 2026-11-18 0.00`},
		bartek:  {`admin-removed 1xDIRT "" 2026-11-20 0.00`, `returned 16xSTONE "" 2026-11-20 0.00`},
	}
	for _, m := range wantMail {
		slices.Sort(m)
	}
	for _, m := range mail {
		slices.Sort(m)
	}
	if !reflect.DeepEqual(mail, wantMail) {
		t.Errorf("mail %v\nwant %v", mail, wantMail)
	}

	var txs []string
	for _, x := range c.Transactions {
		txs = append(txs, fmt.Sprintf("%s #%d %s->%s %s %.2f-%.2f %s %q %q %d★", x.ID[:8], x.ListingID, x.SellerName, x.BuyerName,
			x.Item.Material, x.Price, x.Fee, x.State, x.ErrorCode, x.Item.DisplayName, x.Rating))
	}
	wantTx := []string{
		`3a2b1c0d #30 Grzybek->Kasia_PL DIAMOND 300.00-15.00 COMPLETED "" "" 5★`,
		`4b3c2d1e #31 Kasia_PL->Bartek DIAMOND_PICKAXE 800.00-40.00 FAILED "IMPORTED_UNFINISHED:SELLER_PAID" "§bKilof Górnika" 0★`,
		`5c4d3e2f #32 Grzybek->Bartek EMERALD 50.00-2.50 FAILED "WITHDRAW_FAILED" "" 0★`,
		`6d5e4f3a #33 Bartek->Kasia_PL COOKED_BEEF 10.00-0.50 COMPLETED "" "" 0★`,
	}
	if !slices.Equal(txs, wantTx) {
		t.Errorf("transactions\n%s\nwant\n%s", strings.Join(txs, "\n"), strings.Join(wantTx, "\n"))
	}
	d := c.PlayerData[uuid.MustParse("6f1d2c3b-4a59-4e8f-9a1b-0c2d3e4f5a61")]
	if len(d.Alerts) != 1 || d.Alerts[0].Query != "miecz" || d.Alerts[0].MaxUnitPrice != 100 ||
		d.Alerts[0].ID != uuid.MustParse("2f1a0b9c-3d4e-4f5a-8b6c-7d8e9f0a1b23") || len(d.Favorites) != 2 {
		t.Errorf("Grzybek's favourites and alerts: %+v", d)
	}
	pick := c.Transactions[1].Item
	if pick.Lore[0] != "§7Kopie szybciej niż ktokolwiek" || !reflect.DeepEqual(pick.Enchantments,
		[]market.Enchantment{{Key: "efficiency", Level: 5}, {Key: "unbreaking", Level: 3}}) {
		t.Errorf("legacy pickaxe %+v", pick)
	}
}

// The flagged transaction never touches money: the market opens with no
// purchase to recover, no balance changed and no volume from it.
func TestFlaggedTransactionsAreNeverReplayed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "market.db")
	st := openStore(t, path)
	importDir(t, st, "testdata/server", ImportOptions{})
	must(t, st.Close())
	st = openStore(t, path)
	svc := market.New(st, market.Config{Name: "Rynek", Clock: market.NewManualClock(now)})
	must(t, svc.BindMainThread())
	must(t, svc.Enable())
	defer svc.Close()
	a, err := svc.Audit()
	must(t, err)
	if a.OpenTx != 0 || a.Money != 0 || len(a.Problems) != 0 {
		t.Fatalf("audit after import: %d open transactions, money %d, problems %v", a.OpenTx, a.Money, a.Problems)
	}
	if v, _ := svc.GetMarketVolume(); v != 310 {
		t.Errorf("volume %v, want the two completed sales' 310.00", v)
	}
	must(t, svc.WaitHistory())
	done, _ := svc.GetCompletedTransactions()
	if len(done) != 2 {
		t.Errorf("%d completed transactions, want 2", len(done))
	}
}

func TestLegacyFilesWithoutMarketData(t *testing.T) {
	st := newStore(t)
	r := importDir(t, st, "testdata/legacy", ImportOptions{})
	if !r.NoMarketData || r.Listings != 2 || r.Players != 1 || r.Rounded != 0 {
		t.Fatalf("report %+v", r)
	}
	c := contents(t, st)
	it := c.Listings[0].Item
	if c.Listings[0].SellerName != "Grzybek" || it.DisplayName != "§6Stary Miecz" || it.Lore[0] != "§7Pamiątka z czasów 1.20" ||
		!reflect.DeepEqual(it.Enchantments, []market.Enchantment{{Key: "sharpness", Level: 4}}) {
		t.Errorf("legacy sword %+v", c.Listings[0])
	}
	if planks := c.Listings[1]; planks.Item.Amount != 32 || planks.Price != 3.25 {
		t.Errorf("planks %+v", planks)
	}
}

func TestDryRunWritesNothingAndReportsTheSame(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "market.db")
	// A market that does not exist yet is not created.
	dry := importDir(t, nil, "testdata/server", ImportOptions{DryRun: true})
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a dry run made %s", path)
	}
	st := openStore(t, path)
	dry2 := importDir(t, st, "testdata/server", ImportOptions{DryRun: true})
	if c := contents(t, st); len(c.Players)+len(c.Listings)+len(c.Mail)+len(c.Transactions) != 0 {
		t.Fatalf("a dry run wrote %+v", c)
	}
	real := importDir(t, st, "testdata/server", ImportOptions{})
	dry.DryRun, dry2.DryRun = false, false
	if !reflect.DeepEqual(dry, real) || !reflect.DeepEqual(dry2, real) {
		t.Fatalf("the dry run's report differs from the import's:\n%+v\n%+v", dry, real)
	}
	var out strings.Builder
	real.WriteSummary(&out)
	for _, want := range []string{"balances are not in these files", "1 of them flagged", "3 amounts to cents",
		"  skipped        7 entries, each listed below with the reason\n", "  refused        1 listing those rules refuse: not listed; each item is back in its seller's mailbox", "2 favourites (0 more were of listings that are not on the market), 1 price alert, each firing at its maxPrice per item", "1 rating of those sales by their buyers"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
}

func TestBadFilesAreRefusedWithTheirPlace(t *testing.T) {
	cases := []struct{ dir, want string }{
		{"testdata/malformed", "testdata/malformed/listings.yml:4: not valid YAML: did not find expected ',' or '}'"},
		{"testdata/foreign", "testdata/foreign/listings.yml:2:1: this is not GrzybcioRynek's listings.yml: it has none of the plugin's sections (listings, next-id, expiry-outbox, pending-sales, pending-returns), but settings, messages"},
		{"testdata/badnumber", "testdata/badnumber/market-data.yml:1:15: transactions is \"12\", not a list"},
		{"testdata/nothing-here", "testdata/nothing-here has no listings.yml: give the plugin's data folder (plugins/GrzybcioRynek)"},
	}
	for _, c := range cases {
		st := newStore(t)
		_, err := Import(st, ImportOptions{Dir: c.dir, Now: now})
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: %v\nwant %s", c.dir, err, c.want)
		}
		if got := contents(t, st); len(got.Players) != 0 {
			t.Errorf("%s: a failed import wrote %d players", c.dir, len(got.Players))
		}
	}
}

// failingStore fails the commit of an import, after it has been handed
// every row.
type failingStore struct {
	market.Store
	chunks, commits int
}

func (f *failingStore) BeginBulk() (market.BulkTx, error) {
	tx, err := f.Store.BeginBulk()
	return &failingCommit{BulkTx: tx, f: f}, err
}

type failingCommit struct {
	market.BulkTx
	f *failingStore
}

func (c *failingCommit) Write(b *market.Batch) error {
	c.f.chunks++
	return c.BulkTx.Write(b)
}

func (c *failingCommit) Commit() error {
	c.f.commits++
	c.BulkTx.Rollback()
	return errors.New("disk full")
}

func TestAnImportIsOneTransaction(t *testing.T) {
	st := newStore(t)
	f := &failingStore{Store: st}
	dir := t.TempDir()
	writeGenerated(t, dir, 60_000) // more than a bulk load's chunk
	_, err := Import(f, ImportOptions{Dir: dir, Now: now})
	if err == nil || err.Error() != "write the market: bulk load: disk full" || f.commits != 1 || f.chunks < 2 {
		t.Fatalf("err %v after %d chunks and %d commits; want chunks, then one commit that fails", err, f.chunks, f.commits)
	}
	if c := contents(t, st); len(c.Players)+len(c.Listings) != 0 {
		t.Fatalf("a failed import left %d players and %d listings", len(c.Players), len(c.Listings))
	}
}

// fullDisk refuses an import's first chunk, as a full disk does: the
// store rolls the load back and says why.
type fullDisk struct {
	market.Store
	chunks int
}

func (f *fullDisk) BeginBulk() (market.BulkTx, error) {
	tx, err := f.Store.BeginBulk()
	return &fullChunk{BulkTx: tx, f: f}, err
}

type fullChunk struct {
	market.BulkTx
	f *fullDisk
}

func (c *fullChunk) Write(*market.Batch) error {
	c.f.chunks++
	c.BulkTx.Rollback()
	return errors.New("database or disk is full")
}

// An import whose store fails half-way stops there with the store's
// error: the entry whose chunk failed is no entry skipped, and the rest of
// the files is not read into a load that can no longer be written.
func TestAnImportStopsAtAStoreFailure(t *testing.T) {
	st := newStore(t)
	f := &fullDisk{Store: st}
	dir := t.TempDir()
	writeGenerated(t, dir, 80_000) // the first chunk is full at 50,000
	var notes []Note
	var done, total int
	_, err := Import(f, ImportOptions{Dir: dir, Now: now, Note: func(n Note) { notes = append(notes, n) },
		Progress: func(d, t int) { done, total = d, t }})
	if err == nil || err.Error() != "write the market: bulk load: database or disk is full" || f.chunks != 1 {
		t.Fatalf("err %v after %d chunks; want the store's error after the first", err, f.chunks)
	}
	for _, n := range notes {
		if strings.Contains(n.Text, "disk is full") {
			t.Errorf("the store's failure is noted as an entry's: %s %s", n.Where, n.Text)
		}
	}
	if done*10 > total*7 {
		t.Errorf("the import read %d of %d entries after the store failed at the 50,000th", done, total)
	}
	if c := contents(t, st); len(c.Players)+len(c.Listings) != 0 {
		t.Fatalf("a failed import left %d players and %d listings", len(c.Players), len(c.Listings))
	}
}

func TestMergeIsExplicitAndAddsNothingTwice(t *testing.T) {
	st := newStore(t)
	first := importDir(t, st, "testdata/server", ImportOptions{})
	before := contents(t, st)
	_, err := Import(st, ImportOptions{Dir: "testdata/server", Now: now})
	if !errors.Is(err, ErrNotEmpty) {
		t.Fatalf("a second import without --merge: %v", err)
	}
	r := importDir(t, st, "testdata/server", ImportOptions{Merge: true})
	if r.Players+r.Listings+r.Mail+r.Outbox+r.PendingReturns+r.Expired+r.Transactions != 0 || r.KnownPlayers != 3 || r.AlreadyThere != 14 {
		t.Fatalf("the second merge added: %+v", r)
	}
	if after := contents(t, st); !reflect.DeepEqual(before, after) {
		t.Fatalf("the second merge changed the market")
	}
	var out strings.Builder
	r.WriteSummary(&out)
	if want := "Nothing new from testdata/server: the market has all of it from an earlier import\n"; !strings.HasPrefix(out.String(), want) {
		t.Errorf("summary\n%s\nwant it to start %q", out.String(), want)
	}
	// The players the market has keep their own favourites and alerts, as
	// they keep their names: the merge skips what the first import skipped
	// (the same files), nothing more, and no favourite is of a listing that
	// is not on the market.
	if n, want := r.Count(NoteSkipped), first.Count(NoteSkipped); n != want || r.FavoritesGone != 0 || r.KeptPlayerData != 1 {
		t.Errorf("%d skipped, %d favourites gone, %d players' own kept; want %d, 0 and 1; notes %v", n, r.FavoritesGone, r.KeptPlayerData, want, r.Notes)
	}
	for _, n := range r.Notes {
		if n.Where == "" {
			t.Errorf("a note without its place: %+v", n)
		}
	}
	want := "  players' own   0 favourites (0 more were of listings that are not on the market), 0 price alerts, each firing at its maxPrice per item; 1 player already in the market keeps their own\n"
	if !strings.Contains(out.String(), want) {
		t.Errorf("summary\n%s\nwant the line %q", out.String(), want)
	}
}

// A merge into a market with listings of its own keeps every id it can and
// renumbers the rest after the market's.
func TestMergeRenumbersTakenIDs(t *testing.T) {
	st := newStore(t)
	_, err := seed.Load(st, seed.Options{Players: 5, Listings: 50, Days: -1, Now: now})
	must(t, err)
	r := importDir(t, st, "testdata/server", ImportOptions{Merge: true})
	if r.Listings != 4 || r.Renumbered != 4 {
		t.Fatalf("report %+v", r)
	}
	c := contents(t, st)
	if len(c.Listings) != 54 {
		t.Fatalf("%d listings, want 54", len(c.Listings))
	}
	for _, l := range c.Listings[50:] {
		if l.ID <= 50 {
			t.Errorf("merged listing got id %d, one the market gave", l.ID)
		}
	}
}

// comparable is a market's contents without what an export cannot carry:
// stack ids (the plugin has none) and, for a market made in Rynek, the
// originals an import adds.
func comparable(c *market.StoreContents, keepOriginals bool) *market.StoreContents {
	out := *c
	clean := func(s *market.ItemStack) {
		s.ID = uuid.Nil
		if !keepOriginals {
			s.Original = market.ItemOriginal{}
		}
	}
	out.Players = nil
	out.Listings = slices.Clone(c.Listings)
	for i := range out.Listings {
		clean(&out.Listings[i].Item)
	}
	out.Mail = slices.Clone(c.Mail)
	for i := range out.Mail {
		clean(&out.Mail[i].Item)
	}
	slices.SortFunc(out.Mail, func(a, b market.OwnedMail) int { return strings.Compare(a.ID.String(), b.ID.String()) })
	out.Transactions = slices.Clone(c.Transactions)
	for i := range out.Transactions {
		clean(&out.Transactions[i].Item)
	}
	return &out
}

func roundTrip(t *testing.T, st market.Store) *market.StoreContents {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "GrzybcioRynek")
	_, err := Export(st, dir, ExportOptions{WithoutAuctions: true, WithoutOrders: true})
	must(t, err)
	_, err = Export(st, dir, ExportOptions{WithoutAuctions: true, WithoutOrders: true})
	if err == nil || !strings.Contains(err.Error(), "listings.yml exists: an export never overwrites") {
		t.Errorf("a second export: %v", err)
	}
	back := newStore(t)
	importDir(t, back, dir, ImportOptions{})
	return contents(t, back)
}

func TestExportThenImportGivesTheSameMarket(t *testing.T) {
	st := newStore(t)
	importDir(t, st, "testdata/server", ImportOptions{})
	want := contents(t, st)
	got := roundTrip(t, st)
	// Mail made from entries without an id of their own (an expired listing,
	// the outbox, pending returns) has the id the first import gave it.
	if a, b := comparable(got, true), comparable(want, true); !reflect.DeepEqual(a, b) {
		t.Fatalf("after export and import:\n%+v\nwant\n%+v", a, b)
	}
}

func TestExportOfAMarketMadeInRynek(t *testing.T) {
	st := newStore(t)
	_, err := seed.Load(st, seed.Options{Players: 20, Listings: 300, Days: 3, SalesPerDay: 40, Now: now})
	must(t, err)
	want := contents(t, st)
	// The demo holds auctions and buy orders, which the plugin cannot: the
	// export leaves them out when told to, and the rest comes back whole.
	auctions := leaveOutAuctions(want)
	if auctions == 0 {
		t.Fatal("the seeded market has no auction to leave out")
	}
	got := roundTrip(t, st)
	if a, b := comparable(got, false), comparable(want, false); !reflect.DeepEqual(a.Listings, b.Listings) ||
		!reflect.DeepEqual(a.Mail, b.Mail) || !reflect.DeepEqual(a.Transactions, b.Transactions) {
		for i := range min(len(a.Listings), len(b.Listings)) {
			if !reflect.DeepEqual(a.Listings[i], b.Listings[i]) {
				t.Fatalf("listing %d:\n%+v\nwant\n%+v", i, a.Listings[i], b.Listings[i])
			}
		}
		t.Fatalf("after export and import: %d listings, %d mail, %d transactions; want %d, %d, %d",
			len(a.Listings), len(a.Mail), len(a.Transactions), len(b.Listings), len(b.Mail), len(b.Transactions))
	}
}

// writeGenerated writes a listings.yml of n listings of the current shape,
// by 500 sellers, as SnakeYAML lays it out.
func writeGenerated(t testing.TB, dir string, n int) {
	t.Helper()
	var b strings.Builder
	b.WriteString("listings:\n")
	mats := []string{"diamond_sword", "oak_log", "golden_apple", "enchanted_book", "copper_bulb", "bread"}
	for i := 1; i <= n; i++ {
		seller := uuid.NewSHA1(uuid.Nil, []byte{byte(i % 500), byte(i % 500 >> 8)})
		fmt.Fprintf(&b, "- ==: com.example.marketplace.model.MarketListing\n  id: %d\n  seller: %s\n  sellerName: Gracz_%d\n", i, seller, i%500)
		fmt.Fprintf(&b, "  item:\n    ==: org.bukkit.inventory.ItemStack\n    DataVersion: 4903\n    id: minecraft:%s\n    count: 1\n", mats[i%len(mats)])
		if i%3 == 0 {
			fmt.Fprintf(&b, "    components:\n      minecraft:custom_name: '{color:\"gold\",italic:0b,text:\"Przedmiot numer %d\"}'\n", i)
			b.WriteString("      minecraft:enchantments: '{\"minecraft:unbreaking\":3}'\n")
		}
		fmt.Fprintf(&b, "    schema_version: 1\n  price: %d.125\n  timestamp: %d\n", 1+i%1000, now.UnixMilli()-int64(i)*1000)
	}
	fmt.Fprintf(&b, "next-id: %d\n", n+1)
	must(t, os.WriteFile(filepath.Join(dir, ListingsFile), []byte(b.String()), 0o644))
}

// BenchmarkImport100k imports 100,000 listings into a new market (issue
// target: at most 10 s).
func BenchmarkImport100k(b *testing.B) {
	dir := b.TempDir()
	writeGenerated(b, dir, 100_000)
	for b.Loop() {
		b.StopTimer()
		st, err := sqlite.Open(filepath.Join(b.TempDir(), "market.db"), sqlite.Options{})
		must(b, err)
		b.StartTimer()
		r, err := Import(st, ImportOptions{Dir: dir, Now: now})
		must(b, err)
		if r.Listings != 100_000 {
			b.Fatalf("%d listings", r.Listings)
		}
		b.StopTimer()
		st.Close()
		b.StartTimer()
	}
}

// A section the plugin never wrote beside its own is noted and left out; a
// file with none of the plugin's sections is refused (TestBadFiles...).
func TestAnUnknownSectionIsNotedNotFatal(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("testdata/legacy/listings.yml")
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, ListingsFile), append(data, "auctions: []\n"...), 0o644))
	r := importDir(t, newStore(t), dir, ImportOptions{DryRun: true})
	if r.Listings != 2 || len(r.Notes) != 1 || r.Notes[0].Text != `section "auctions" skipped: the plugin never wrote it` ||
		r.Notes[0].Where != filepath.Join(dir, ListingsFile)+":29:1" {
		t.Fatalf("report %+v", r)
	}
}

// The favourites of a player the files name nowhere else (no listing,
// mail or sale) are skipped with their place and the reason.
func TestFavouritesOfAPlayerNamedNowhereElse(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("testdata/legacy/listings.yml")
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, ListingsFile), data, 0o644))
	must(t, os.WriteFile(filepath.Join(dir, MarketDataFile), []byte("favorites:\n  0c0c0c0c-1d1d-4e2e-8f3f-4a4a4a4a4a4a:\n  - 1\ntransactions: []\n"), 0o644))
	r := importDir(t, newStore(t), dir, ImportOptions{DryRun: true})
	want := Note{Kind: NoteSkipped, Where: filepath.Join(dir, MarketDataFile) + ":3:5",
		Text: "the favourites and alerts of 0c0c0c0c-1d1d-4e2e-8f3f-4a4a4a4a4a4a skipped: the files name this player nowhere else (no listing, mail or sale)"}
	if len(r.Notes) != 1 || r.Notes[0] != want {
		t.Fatalf("notes %+v, want [%+v]", r.Notes, want)
	}
}

// The export's summary counts the players' favourites, alerts and ratings
// it writes (it once said they were empty while its files held them).
func TestExportSummaryCountsThePlayersData(t *testing.T) {
	st := newStore(t)
	importDir(t, st, "testdata/server", ImportOptions{ExpiryDays: 36500})
	dir := filepath.Join(t.TempDir(), "GrzybcioRynek")
	sum, err := Export(st, dir, ExportOptions{})
	must(t, err)
	var out strings.Builder
	sum.WriteSummary(&out)
	want := "exported 5 listings, 5 mailbox entries and 4 transactions to " + filepath.Join(dir, ListingsFile) + " and " + filepath.Join(dir, MarketDataFile) + "\n" +
		"  with the players' 2 favourites, 1 price alert and 1 rating\n" +
		"the plugin computes each listing's expiry from its own listing-expiry-days\n"
	if out.String() != want {
		t.Fatalf("summary\n%s\nwant\n%s", out.String(), want)
	}
	data, err := os.ReadFile(filepath.Join(dir, MarketDataFile))
	must(t, err)
	for _, in := range []string{"  - 2\n    - 7\n", "query: miecz", "stars: 5"} {
		if !strings.Contains(string(data), in) {
			t.Errorf("%s lacks %q:\n%s", MarketDataFile, in, data)
		}
	}
}

// An import whose files hold nothing Rynek can load writes nothing, not
// even the players its skipped entries name, and says so.
func TestAnImportThatAddsNothingWritesNothing(t *testing.T) {
	dir := t.TempDir()
	listings, err := os.ReadFile("testdata/server/listings.yml")
	must(t, err)
	data, err := os.ReadFile("testdata/server/market-data.yml")
	must(t, err)
	// Listing #4 (air) alone, and the transaction of a player with
	// himself alone.
	start, end := bytes.Index(listings, []byte("- ==: com.example.marketplace.model.MarketListing\n  id: 4\n")), bytes.Index(listings, []byte("- ==: com.example.marketplace.model.MarketListing\n  id: 5\n"))
	must(t, os.WriteFile(filepath.Join(dir, ListingsFile), append(append([]byte("listings:\n"), listings[start:end]...), "next-id: 42\n"...), 0o644))
	tx := bytes.Index(data, []byte("- id: 7e6f5a4b"))
	must(t, os.WriteFile(filepath.Join(dir, MarketDataFile), append([]byte("ratings: []\ntransactions:\n"), data[tx:]...), 0o644))
	st := newStore(t)
	r := importDir(t, st, dir, ImportOptions{})
	if r.Added() != 0 || r.Count(NoteSkipped) != 2 || r.Players != 1 {
		t.Fatalf("added %d, skipped %d, players %d; want 0, 2 and the one met", r.Added(), r.Count(NoteSkipped), r.Players)
	}
	if c := contents(t, st); len(c.Players) != 0 {
		t.Fatalf("an import that added nothing wrote %d players", len(c.Players))
	}
	var out strings.Builder
	r.WriteSummary(&out)
	if want := "Nothing to import from " + dir + ":\n"; !strings.HasPrefix(out.String(), want) {
		t.Errorf("summary\n%s\nwant it to start %q", out.String(), want)
	}
}

// A dry run of more rows than a chunk of a data load checks them all and
// writes none, into a market that does not exist yet or one that does.
func TestALargeDryRunWritesNothing(t *testing.T) {
	dir := t.TempDir()
	writeGenerated(t, dir, 60_000)
	r, err := Import(nil, ImportOptions{Dir: dir, Now: now, DryRun: true})
	if err != nil || r.Listings != 60_000 {
		t.Fatalf("a dry run without a market: %v, %d listings", err, r.Listings)
	}
	st := newStore(t)
	r, err = Import(st, ImportOptions{Dir: dir, Now: now, DryRun: true})
	if err != nil {
		t.Fatalf("a dry run into a market: %v", err)
	}
	if c := contents(t, st); len(c.Players)+len(c.Listings) != 0 || r.Listings != 60_000 {
		t.Fatalf("a dry run reporting %d listings wrote %d players and %d listings", r.Listings, len(c.Players), len(c.Listings))
	}
}

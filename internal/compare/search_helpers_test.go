package compare_test

// Contenders of the search comparison (search_test.go), built from one
// market the same way by the agreement test and the benchmark.

import (
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"charm.land/bubbles/v2/list"
	"github.com/rynek/rynek/internal/benchdata"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/playertext"
	"github.com/rynek/rynek/market/sqlite"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// searchQueries is the query set of market/bench_test.go (benchQueries), from
// selective to broad.
var searchQueries = []string{
	"swift sneak",      // a rare enchantment
	"#777777",          // an exact id
	"legendarny miecz", // a two-word display name
	"kowalski",         // a seller name
	"diamond",          // a material
	"netherite sword",  // two words, material
	"oak",              // a common word
	"a",                // a single common letter
}

// searchPageSize is the page every contender answers (with a total).
const searchPageSize = 200

// searchData is one market and the inputs of every contender, built from
// svc.GetListings().
type searchData struct {
	svc      *market.Service
	listings []market.Listing // newest first (ids descending)
	texts    []string         // per listing: its folded words joined by spaces
	fts      *searchFTS       // built on first use: see ftsTable
}

// searchBuild opens a generated market of n listings and builds the
// contenders' inputs from its listings.
func searchBuild(tb testing.TB, n int) *searchData {
	tb.Helper()
	t0 := time.Now()
	svc, _ := benchdata.Open(tb, benchdata.Path(tb, n, -1), sqlite.Options{}, market.Config{})
	tb.Logf("search: %d listings: market ready in %v", n, time.Since(t0).Round(time.Millisecond))
	ls, err := svc.GetListings()
	if err != nil {
		tb.Fatal(err)
	}
	if len(ls) != n {
		tb.Fatalf("search: %d listings, want %d", len(ls), n)
	}
	slices.SortFunc(ls, func(a, b market.Listing) int { return b.ID - a.ID })
	d := &searchData{svc: svc, listings: ls, texts: make([]string, len(ls))}
	for i, l := range ls {
		d.texts[i] = searchText(l)
	}
	return d
}

// ftsTable returns the FTS5 contender, building it on first use (about a
// minute at 1M listings), so that benchmarks of the others do not wait.
func (d *searchData) ftsTable(tb testing.TB) *searchFTS {
	tb.Helper()
	if d.fts == nil {
		t0 := time.Now()
		d.fts = searchNewFTS(tb, d)
		tb.Logf("search: %d listings: FTS5 (%s) built in %v", len(d.listings), d.fts.tokenizer, time.Since(t0).Round(time.Millisecond))
	}
	return d.fts
}

// searchWords folds s and splits it into runs of letters and digits, the
// words of the matching rule (market/index.go).
func searchWords(dst []string, s string) []string {
	return append(dst, strings.FieldsFunc(playertext.Fold(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })...)
}

// searchText is the searchable text of a listing: the words of its material
// key, readable name and Polish words, colour-stripped display name, lore,
// enchantment keys and names and seller name, folded and joined by single
// spaces. A query word (letters and digits only) is a substring of this text
// exactly when it is a substring of one of the listing's words, so
// strings.Contains, an FTS5 trigram phrase and LIKE '%w%' all implement
// Rynek's rule on it.
func searchText(l market.Listing) string {
	var w []string
	info, _ := catalog.LookupMaterial(l.Item.Material)
	w = searchWords(w, info.Key)
	w = searchWords(w, info.Name)
	w = searchWords(w, info.PolishWords)
	w = searchWords(w, playertext.StripColors(l.Item.DisplayName))
	for _, line := range l.Item.Lore {
		w = searchWords(w, playertext.StripColors(line))
	}
	for _, e := range l.Item.Enchantments {
		ei, _ := catalog.LookupEnchantment(e.Key)
		w = searchWords(w, ei.Key)
		w = searchWords(w, ei.Name)
	}
	w = searchWords(w, l.SellerName)
	return strings.Join(w, " ")
}

// --- rynek ---

// searchRynek answers q through market.Query, newest first; limit < 0 is all.
func searchRynek(tb testing.TB, d *searchData, q string, limit int) ([]market.Listing, int) {
	p, err := d.svc.Query(market.Query{Text: q, Limit: limit})
	if err != nil {
		tb.Fatal(err)
	}
	return p.Listings, p.Total
}

// --- scan ---

// searchScan is what the original plugin does: look at every listing, newest
// first, and test every query word with strings.Contains on its pre-folded
// text. It stops filling the page at limit but counts every match, so it
// reports a total like the others. limit < 0 is all.
func searchScan(d *searchData, q string, limit int) ([]market.Listing, int) {
	p := market.ParseSearch(q)
	if p.NoMatch {
		return nil, 0
	}
	var page []market.Listing
	total := 0
outer:
	for i, text := range d.texts {
		id := d.listings[i].ID
		for _, want := range p.IDs {
			if id != want {
				continue outer
			}
		}
		for _, w := range p.Words {
			if !strings.Contains(text, w) {
				continue outer
			}
		}
		total++
		if limit < 0 || len(page) < limit {
			page = append(page, d.listings[i])
		}
	}
	return page, total
}

// --- listfilter ---

// searchListFilter is the stock bubbles list's filter: a fuzzy subsequence
// match of the whole query against every item's filter string, all matches
// ranked by score; the list shows the first ranks. limit < 0 is all.
func searchListFilter(d *searchData, q string, limit int) ([]list.Rank, int) {
	ranks := list.DefaultFilter(q, d.texts)
	if limit >= 0 && len(ranks) > limit {
		return ranks[:limit], len(ranks)
	}
	return ranks, len(ranks)
}

// --- fts5 ---

// searchFTS is an SQLite FTS5 table of the folded listing texts (rowid =
// listing id) in an in-memory database on one connection.
type searchFTS struct {
	db        *sql.DB
	tokenizer string // "trigram" or "unicode61"
	stmts     map[string]*sql.Stmt
}

func searchNewFTS(tb testing.TB, d *searchData) *searchFTS {
	tb.Helper()
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		tb.Fatal(err)
	}
	// An in-memory database lives as long as its one connection.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	f := &searchFTS{db: db, tokenizer: "trigram", stmts: map[string]*sql.Stmt{}}
	if _, err := db.Exec(`CREATE VIRTUAL TABLE f USING fts5(body, tokenize='trigram')`); err != nil {
		// Not reached with modernc.org/sqlite (SQLite >= 3.34 has trigram).
		// unicode61 indexes whole words, so the fallback asks prefix queries
		// ("sharp"* finds sharpness): a query word that sits inside a listing
		// word rather than at its start ("ness") would not match, unlike Rynek.
		tb.Logf("search: trigram tokenizer unavailable (%v); using unicode61 with prefix queries", err)
		f.tokenizer = "unicode61"
		if _, err := db.Exec(`CREATE VIRTUAL TABLE f USING fts5(body, tokenize='unicode61')`); err != nil {
			tb.Fatal(err)
		}
	}
	tx, err := db.Begin()
	if err != nil {
		tb.Fatal(err)
	}
	ins, err := tx.Prepare(`INSERT INTO f(rowid, body) VALUES(?, ?)`)
	if err != nil {
		tb.Fatal(err)
	}
	for i, l := range d.listings {
		if _, err := ins.Exec(l.ID, d.texts[i]); err != nil {
			tb.Fatal(err)
		}
	}
	if err := ins.Close(); err != nil {
		tb.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
	// Merge the segments into one b-tree, as a read-mostly index would be.
	if _, err := db.Exec(`INSERT INTO f(f) VALUES('optimize')`); err != nil {
		tb.Fatal(err)
	}
	return f
}

// searchFTSQuery is one query in SQL: the page and the count statements
// (prepared once and cached, as an application would) and their arguments.
type searchFTSQuery struct {
	page, count *sql.Stmt
	args        []any
	none        bool // the query can never match (#0)
}

// prepare turns a query into SQL. Words of 3+ characters become one MATCH of
// quoted phrases ANDed ("netherite" AND "sword"): with the trigram tokenizer
// a phrase is a substring match. Words of 1-2 characters cannot be looked up
// in a trigram index, so they fall back to body LIKE '%w%', a scan of every
// row: that is what an FTS5 user has to do. #<id> is rowid = ?.
func (f *searchFTS) prepare(tb testing.TB, q string) searchFTSQuery {
	tb.Helper()
	p := market.ParseSearch(q)
	if p.NoMatch {
		return searchFTSQuery{none: true}
	}
	var conds []string
	var args []any
	for _, id := range p.IDs {
		conds = append(conds, "rowid = ?")
		args = append(args, id)
	}
	var phrases []string
	for _, w := range p.Words {
		switch {
		case f.tokenizer == "unicode61":
			phrases = append(phrases, `"`+w+`"*`)
		case len([]rune(w)) >= 3:
			phrases = append(phrases, `"`+w+`"`)
		default:
			conds = append(conds, "body LIKE ?")
			args = append(args, "%"+w+"%") // words are letters and digits: no LIKE wildcards
		}
	}
	if len(phrases) > 0 {
		conds = append(conds, "f MATCH ?")
		args = append(args, strings.Join(phrases, " AND "))
	}
	where := ""
	if len(conds) > 0 {
		where = " WHERE " + strings.Join(conds, " AND ")
	}
	return searchFTSQuery{
		page:  f.stmt(tb, fmt.Sprintf("SELECT rowid FROM f%s ORDER BY rowid DESC LIMIT ?", where)),
		count: f.stmt(tb, "SELECT count(*) FROM f"+where),
		args:  args,
	}
}

func (f *searchFTS) stmt(tb testing.TB, q string) *sql.Stmt {
	if s, ok := f.stmts[q]; ok {
		return s
	}
	s, err := f.db.Prepare(q)
	if err != nil {
		tb.Fatalf("%s: %v", q, err)
	}
	f.stmts[q] = s
	return s
}

// run answers a prepared query: the ids of the page (newest first; limit < 0
// is all) and the total. It returns ids, not listings: turning them into
// listings would be extra work on FTS5's side that this comparison leaves out.
func (f *searchFTS) run(tb testing.TB, fq searchFTSQuery, limit int) ([]int, int) {
	if fq.none {
		return nil, 0
	}
	rows, err := fq.page.Query(append(fq.args[:len(fq.args):len(fq.args)], limit)...)
	if err != nil {
		tb.Fatal(err)
	}
	var ids []int
	for rows.Next() {
		var id int
		if err := rows.Scan(&id); err != nil {
			tb.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	rows.Close()
	var total int
	if err := fq.count.QueryRow(fq.args...).Scan(&total); err != nil {
		tb.Fatal(err)
	}
	return ids, total
}

// searchIDs returns the ids of listings.
func searchIDs(ls []market.Listing) []int {
	ids := make([]int, len(ls))
	for i, l := range ls {
		ids[i] = l.ID
	}
	return ids
}

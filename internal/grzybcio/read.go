package grzybcio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"go.yaml.in/yaml/v3"
)

// The plugin's two data files and the class tag of its listings.
const (
	ListingsFile   = "listings.yml"
	MarketDataFile = "market-data.yml"
	listingTag     = "com.example.marketplace.model.MarketListing"
	// unknownName is what the plugin called a player whose name it lacked.
	unknownName = "Nieznany"
)

// source is what the two files hold, read and checked, before anything is
// loaded.
type source struct {
	listings       []listingEntry
	nextID         int64 // 0: the file has no next-id
	outbox         []mailEntry
	pendingReturns []mailEntry
	mail           []mailEntry
	transactions   []txEntry
	hasMarketData  bool
	// ratings are the buyers' ratings by transaction id.
	ratings map[uuid.UUID]ratingEntry
	// favorites and alerts are each player's, in the files' order.
	favorites map[uuid.UUID][]int64
	alerts    map[uuid.UUID][]alertEntry
	// Counted, not imported: Rynek shows sales in each player's history.
	saleNotices int
	notes       []Note
}

// alertEntry is one of the plugin's price alerts.
type alertEntry struct {
	where   string
	id      uuid.UUID // uuid.Nil when the file has none usable
	query   string
	max     float64
	created int64
}

// ratingEntry is one of the plugin's ratings: a transaction's stars.
type ratingEntry struct {
	where string
	stars int
}

type listingEntry struct {
	where      string
	id         int64
	seller     uuid.UUID
	sellerName string // "" when the file has none
	item       market.ItemStack
	price      float64
	created    int64 // unix ms
}

type mailEntry struct {
	where   string
	owner   uuid.UUID
	id      uuid.UUID // uuid.Nil: the file gives none (pending returns, the outbox)
	key     string    // what makes the entry's stack id when it has no id
	item    market.ItemStack
	reason  string
	created int64   // unix ms; 0: unknown
	prev    float64 // the previous price, 0: none
}

type txEntry struct {
	where                 string
	id                    uuid.UUID
	listingID             int64
	buyer, seller         uuid.UUID
	buyerName, sellerName string
	item                  market.ItemStack
	price, fee, received  float64
	created               int64
	state                 market.State
	errorCode             string
}

// read reads and checks dir's files. A file that cannot be read, is not
// YAML or is not the plugin's is an error; an entry that cannot be used is
// skipped and noted, as the plugin skipped it.
func read(dir string) (*source, error) {
	src := &source{}
	lf := &file{path: filepath.Join(dir, ListingsFile)}
	mf := &file{path: filepath.Join(dir, MarketDataFile)}
	// The two files are parsed side by side: parsing is most of an import.
	var data parsedFile
	done := make(chan struct{})
	go func() {
		defer close(done)
		data = mf.parseFile()
	}()
	listings := lf.parseFile()
	<-done
	switch {
	case errors.Is(listings.err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s has no %s: give the plugin's data folder (plugins/GrzybcioRynek)", dir, ListingsFile)
	case listings.err != nil:
		return nil, listings.err
	}
	if err := src.readListingsFile(lf, listings.root); err != nil {
		return nil, err
	}
	switch {
	case errors.Is(data.err, fs.ErrNotExist):
		return src, nil // the plugin's first versions had no market-data.yml
	case data.err != nil:
		return nil, data.err
	}
	src.hasMarketData = true
	if err := src.readMarketData(mf, data.root); err != nil {
		return nil, err
	}
	return src, nil
}

// parsedFile is a file read and parsed, or why not.
type parsedFile struct {
	root *yaml.Node
	err  error
}

func (f *file) parseFile() parsedFile {
	data, err := os.ReadFile(f.path)
	if err != nil {
		return parsedFile{err: err}
	}
	root, err := f.parse(data)
	return parsedFile{root, err}
}

// itemResult is what readItem made of one entry's item.
type itemResult struct {
	stack market.ItemStack
	notes []string
	skip  *skip
}

// readItems reads the item of each entry, on every core: with the parse,
// reading items is most of an import. The results are in entry order.
func (f *file) readItems(entries []*yaml.Node) []itemResult {
	out := make([]itemResult, len(entries))
	workers := min(runtime.GOMAXPROCS(0), max(1, len(entries)/256))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(entries); i += workers {
				r := &out[i]
				r.stack, r.notes, r.skip = f.readItem(get(deref(entries[i]), "item"))
			}
		}()
	}
	wg.Wait()
	return out
}

func (src *source) note(kind NoteKind, where, format string, args ...any) {
	src.notes = append(src.notes, Note{Kind: kind, Where: where, Text: fmt.Sprintf(format, args...)})
}

// checkRoot refuses a file that is not the plugin's: its root must be a
// map with at least one of the plugin's sections. A section the plugin
// never wrote beside them (another version's, or a hand edit) is noted and
// left out.
func (src *source) checkRoot(f *file, root *yaml.Node, known ...string) error {
	what := "GrzybcioRynek's " + filepath.Base(f.path)
	if root.Kind != yaml.MappingNode {
		return f.errorf(root, "this is not %s: it holds %s, not a map of sections", what, kindName(root))
	}
	var foreign []*yaml.Node
	found := false
	pairs(root, func(k, _ *yaml.Node) error {
		if slices.Contains(known, k.Value) {
			found = true
		} else {
			foreign = append(foreign, k)
		}
		return nil
	})
	if !found {
		names := make([]string, len(foreign))
		for i, k := range foreign {
			names[i] = k.Value
		}
		return f.errorf(root, "this is not %s: it has none of the plugin's sections (%s), but %s",
			what, strings.Join(known, ", "), truncate(strings.Join(names, ", "), 120))
	}
	for _, k := range foreign {
		src.note(NoteSkipped, f.where(k), "section %q skipped: the plugin never wrote it", truncate(k.Value, 60))
	}
	return nil
}

func (src *source) readListingsFile(f *file, root *yaml.Node) error {
	if root == nil {
		return nil // an empty file: no listings yet
	}
	if err := src.checkRoot(f, root, "listings", "next-id", "expiry-outbox", "pending-sales", "pending-returns"); err != nil {
		return err
	}
	if n := get(root, "next-id"); n != nil {
		v, ok := integer(n)
		if !ok || v < 1 {
			return f.errorf(n, "next-id is %s, not a positive whole number", kindName(n))
		}
		src.nextID = v
	}
	if n := get(root, "listings"); !isNull(n) {
		if n.Kind != yaml.SequenceNode {
			return f.errorf(n, "listings is %s, not a list", kindName(n))
		}
		items := f.readItems(n.Content)
		for i, e := range n.Content {
			src.readListing(f, deref(e), items[i])
		}
	}
	if n := get(root, "expiry-outbox"); !isNull(n) {
		if n.Kind != yaml.MappingNode {
			return f.errorf(n, "expiry-outbox is %s, not a map", kindName(n))
		}
		pairs(n, func(k, v *yaml.Node) error { src.readOutbox(f, k, v); return nil })
	}
	if n := get(root, "pending-returns"); !isNull(n) {
		if n.Kind != yaml.MappingNode {
			return f.errorf(n, "pending-returns is %s, not a map", kindName(n))
		}
		pairs(n, func(k, v *yaml.Node) error { src.readPendingReturns(f, k, v); return nil })
	}
	if n := get(root, "pending-sales"); n != nil && n.Kind == yaml.MappingNode {
		pairs(n, func(_, v *yaml.Node) error {
			if v.Kind == yaml.SequenceNode {
				src.saleNotices += len(v.Content)
			} else if v.Kind == yaml.MappingNode { // the legacy by-name section
				pairs(v, func(_, w *yaml.Node) error {
					if w.Kind == yaml.SequenceNode {
						src.saleNotices += len(w.Content)
					}
					return nil
				})
			}
			return nil
		})
	}
	return nil
}

// entryMap checks that a list entry is a map, tagged with want or untagged.
func (src *source) entryMap(f *file, n *yaml.Node, what, want string) bool {
	if n.Kind != yaml.MappingNode {
		src.note(NoteSkipped, f.where(n), "%s skipped: it is %s, not a map", what, kindName(n))
		return false
	}
	if tag, ok := text(get(n, "==")); ok && want != "" && tag != want {
		src.note(NoteSkipped, f.where(n), "%s skipped: it is a %q, not a %s", what, truncate(tag, 60), want)
		return false
	}
	return true
}

// field is the value of key in entry n, or n when it has none: where to
// point at a problem with it.
func field(n *yaml.Node, key string) *yaml.Node {
	if v := get(n, key); v != nil {
		return v
	}
	return n
}

// player reads a UUID field.
func player(n *yaml.Node) (uuid.UUID, bool) {
	s, ok := text(n)
	if !ok {
		return uuid.Nil, false
	}
	id, err := uuid.Parse(strings.TrimSpace(s))
	return id, err == nil && id != uuid.Nil
}

// name reads a player's name; "" when the file has none.
func name(n *yaml.Node) string {
	s, _ := text(n)
	return strings.TrimSpace(s)
}

func (src *source) readListing(f *file, n *yaml.Node, it itemResult) {
	what := "listing"
	if id, ok := integer(get(n, "id")); ok {
		what = "listing #" + strconv.FormatInt(id, 10)
	}
	if !src.entryMap(f, n, what, listingTag) {
		return
	}
	bad := func(at *yaml.Node, format string, args ...any) {
		src.note(NoteSkipped, f.where(at), "%s skipped: %s", what, fmt.Sprintf(format, args...))
	}
	var l listingEntry
	l.where = f.where(n)
	var ok bool
	if l.id, ok = integer(get(n, "id")); !ok || l.id < 1 || l.id > 1<<31-1 {
		bad(field(n, "id"), "its id is %s, not a positive whole number", kindName(get(n, "id")))
		return
	}
	if l.seller, ok = player(get(n, "seller")); !ok {
		bad(field(n, "seller"), "its seller is %s, not a player's UUID", kindName(get(n, "seller")))
		return
	}
	l.sellerName = name(get(n, "sellerName"))
	if l.price, ok = number(get(n, "price")); !ok {
		bad(field(n, "price"), "its price is %s, not a number", kindName(get(n, "price")))
		return
	}
	if l.created, ok = integer(get(n, "timestamp")); !ok {
		bad(field(n, "timestamp"), "its timestamp is %s, not epoch milliseconds", kindName(get(n, "timestamp")))
		return
	}
	if sk := it.skip; sk != nil {
		at := sk.at
		if at == nil {
			at = n
		}
		bad(at, "%s", sk.reason)
		return
	}
	for _, t := range it.notes {
		src.note(NoteShortened, l.where, "%s: %s", what, t)
	}
	l.item = it.stack
	src.listings = append(src.listings, l)
}

func (src *source) readOutbox(f *file, k, n *yaml.Node) {
	what := "expiry in flight of listing " + truncate(k.Value, 20)
	if !src.entryMap(f, n, what, "") {
		return
	}
	m := mailEntry{where: f.where(n), reason: "expired", key: "outbox\x00" + k.Value}
	var ok bool
	if m.owner, ok = player(get(n, "seller")); !ok {
		src.note(NoteSkipped, m.where, "%s skipped: its seller is %s, not a player's UUID", what, kindName(get(n, "seller")))
		return
	}
	if r := name(get(n, "reason")); r != "" {
		m.reason = r
	}
	m.prev, _ = number(get(n, "price"))
	src.readMailItem(f, n, &m, what, &src.outbox)
}

func (src *source) readPendingReturns(f *file, k, n *yaml.Node) {
	owner, ok := player(k)
	if !ok {
		src.note(NoteSkipped, f.where(k), "pending returns of %s skipped: not a player's UUID", kindName(k))
		return
	}
	if n.Kind != yaml.SequenceNode {
		src.note(NoteSkipped, f.where(n), "pending returns of %s skipped: %s, not a list", owner, kindName(n))
		return
	}
	for i, e := range n.Content {
		e = deref(e)
		m := mailEntry{where: f.where(e), owner: owner, reason: "returned", key: fmt.Sprintf("return\x00%s\x00%d", owner, i)}
		item, notes, sk := f.readItem(e)
		what := fmt.Sprintf("pending return %d of %s", i+1, owner)
		if sk != nil {
			src.note(NoteSkipped, f.where(e), "%s skipped: %s", what, sk.reason)
			continue
		}
		for _, t := range notes {
			src.note(NoteShortened, m.where, "%s: %s", what, t)
		}
		m.item = item
		src.pendingReturns = append(src.pendingReturns, m)
	}
}

// readMailItem reads the item of a mail-like entry n into m and keeps m.
func (src *source) readMailItem(f *file, n *yaml.Node, m *mailEntry, what string, into *[]mailEntry) {
	item, notes, sk := f.readItem(get(n, "item"))
	if sk != nil {
		at := sk.at
		if at == nil {
			at = n
		}
		src.note(NoteSkipped, f.where(at), "%s skipped: %s", what, sk.reason)
		return
	}
	for _, t := range notes {
		src.note(NoteShortened, m.where, "%s: %s", what, t)
	}
	m.item = item
	*into = append(*into, *m)
}

func (src *source) readMarketData(f *file, root *yaml.Node) error {
	if root == nil {
		return nil
	}
	if err := src.checkRoot(f, root, "favorites", "mailbox", "alerts", "ratings", "transactions"); err != nil {
		return err
	}
	perPlayer := func(section string, each func(owner uuid.UUID, e *yaml.Node)) error {
		n := get(root, section)
		if isNull(n) {
			return nil
		}
		if n.Kind != yaml.MappingNode {
			return f.errorf(n, "%s is %s, not a map", section, kindName(n))
		}
		return pairs(n, func(k, v *yaml.Node) error {
			owner, ok := player(k)
			if !ok || v.Kind != yaml.SequenceNode {
				src.note(NoteSkipped, f.where(k), "%s of %s skipped: not a player's UUID with a list", section, kindName(k))
				return nil
			}
			for _, e := range v.Content {
				each(owner, deref(e))
			}
			return nil
		})
	}
	src.favorites, src.alerts = map[uuid.UUID][]int64{}, map[uuid.UUID][]alertEntry{}
	if err := perPlayer("favorites", func(owner uuid.UUID, e *yaml.Node) {
		if id, ok := integer(e); ok && id > 0 && id <= 1<<31-1 {
			src.favorites[owner] = append(src.favorites[owner], id)
		} else {
			src.note(NoteSkipped, f.where(e), "a favourite of %s skipped: %s, not a listing id", owner, kindName(e))
		}
	}); err != nil {
		return err
	}
	if err := perPlayer("alerts", func(owner uuid.UUID, e *yaml.Node) {
		if !src.entryMap(f, e, "an alert of "+owner.String(), "") {
			return
		}
		a := alertEntry{where: f.where(e)}
		var ok bool
		a.query, _ = text(get(e, "query"))
		if a.max, ok = number(get(e, "maxPrice")); !ok {
			src.note(NoteSkipped, a.where, "an alert of %s skipped: its maxPrice is %s, not a number", owner, kindName(get(e, "maxPrice")))
			return
		}
		a.created, _ = integer(get(e, "createdAt"))
		a.id, _ = player(get(e, "id"))
		src.alerts[owner] = append(src.alerts[owner], a)
	}); err != nil {
		return err
	}
	if n := get(root, "ratings"); !isNull(n) {
		if n.Kind != yaml.SequenceNode {
			return f.errorf(n, "ratings is %s, not a list", kindName(n))
		}
		for _, e := range n.Content {
			src.readRating(f, deref(e))
		}
	}
	if n := get(root, "mailbox"); !isNull(n) {
		if n.Kind != yaml.MappingNode {
			return f.errorf(n, "mailbox is %s, not a map", kindName(n))
		}
		pairs(n, func(k, v *yaml.Node) error { src.readMailbox(f, k, v); return nil })
	}
	if n := get(root, "transactions"); !isNull(n) {
		if n.Kind != yaml.SequenceNode {
			return f.errorf(n, "transactions is %s, not a list", kindName(n))
		}
		for _, e := range n.Content {
			src.readTransaction(f, deref(e))
		}
	}
	return nil
}

func (src *source) readMailbox(f *file, k, n *yaml.Node) {
	owner, ok := player(k)
	if !ok {
		src.note(NoteSkipped, f.where(k), "mailbox of %s skipped: not a player's UUID", kindName(k))
		return
	}
	if n.Kind != yaml.SequenceNode {
		src.note(NoteSkipped, f.where(n), "mailbox of %s skipped: %s, not a list", owner, kindName(n))
		return
	}
	for _, e := range n.Content {
		e = deref(e)
		what := "mail of " + owner.String()
		if !src.entryMap(f, e, what, "") {
			continue
		}
		m := mailEntry{where: f.where(e), owner: owner}
		if m.id, ok = player(get(e, "id")); !ok {
			src.note(NoteSkipped, m.where, "%s skipped: its id is %s, not a UUID", what, kindName(get(e, "id")))
			continue
		}
		what = "mail " + m.id.String()
		if m.reason = name(get(e, "reason")); m.reason == "" {
			src.note(NoteSkipped, m.where, "%s skipped: it has no reason", what)
			continue
		}
		if m.created, ok = integer(get(e, "timestamp")); !ok {
			src.note(NoteSkipped, m.where, "%s skipped: its timestamp is %s, not epoch milliseconds", what, kindName(get(e, "timestamp")))
			continue
		}
		if p := get(e, "previousPrice"); !isNull(p) {
			if m.prev, ok = number(p); !ok {
				src.note(NoteSkipped, m.where, "%s skipped: its previousPrice is %s, not a number", what, kindName(p))
				continue
			}
		}
		m.key = "mail\x00" + m.id.String()
		src.readMailItem(f, e, &m, what, &src.mail)
	}
}

// readRating reads one rating: the plugin kept one per transaction, a later
// one replacing an earlier.
func (src *source) readRating(f *file, n *yaml.Node) {
	if !src.entryMap(f, n, "rating", "") {
		return
	}
	id, ok := player(get(n, "transactionId"))
	if !ok {
		src.note(NoteSkipped, f.where(n), "rating skipped: its transactionId is %s, not a UUID", kindName(get(n, "transactionId")))
		return
	}
	stars, ok := integer(get(n, "stars"))
	if !ok || stars < 1 || stars > 5 {
		src.note(NoteSkipped, f.where(n), "rating of transaction %s skipped: its stars are %s, not 1 to 5", id, kindName(get(n, "stars")))
		return
	}
	if src.ratings == nil {
		src.ratings = map[uuid.UUID]ratingEntry{}
	}
	src.ratings[id] = ratingEntry{where: f.where(n), stars: int(stars)}
}

func (src *source) readTransaction(f *file, n *yaml.Node) {
	what := "transaction"
	if id, ok := text(get(n, "id")); ok {
		what = "transaction " + truncate(id, 40)
	}
	if !src.entryMap(f, n, what, "") {
		return
	}
	t := txEntry{where: f.where(n)}
	// at is the field a problem is in.
	at := n
	bad := func(format string, args ...any) {
		src.note(NoteSkipped, f.where(at), "%s skipped: %s", what, fmt.Sprintf(format, args...))
	}
	var ok bool
	if at = field(n, "id"); true {
		t.id, ok = player(get(n, "id"))
	}
	if !ok {
		bad("its id is %s, not a UUID", kindName(get(n, "id")))
		return
	}
	if at = field(n, "listingId"); true {
		t.listingID, ok = integer(get(n, "listingId"))
	}
	if !ok || t.listingID < 0 || t.listingID > 1<<31-1 {
		bad("its listingId is %s, not a listing id", kindName(get(n, "listingId")))
		return
	}
	if at = field(n, "buyer"); true {
		t.buyer, ok = player(get(n, "buyer"))
	}
	if !ok {
		bad("its buyer is %s, not a player's UUID", kindName(get(n, "buyer")))
		return
	}
	if at = field(n, "seller"); true {
		t.seller, ok = player(get(n, "seller"))
	}
	if !ok {
		bad("its seller is %s, not a player's UUID", kindName(get(n, "seller")))
		return
	}
	t.buyerName, t.sellerName = name(get(n, "buyerName")), name(get(n, "sellerName"))
	for _, p := range []struct {
		key string
		v   *float64
	}{{"price", &t.price}, {"fee", &t.fee}, {"sellerReceived", &t.received}} {
		v := get(n, p.key)
		if p.key != "price" && isNull(v) {
			continue
		}
		at = field(n, p.key)
		if *p.v, ok = number(v); !ok {
			bad("its %s is %s, not a number", p.key, kindName(v))
			return
		}
	}
	at = field(n, "timestamp")
	if t.created, ok = integer(get(n, "timestamp")); !ok {
		bad("its timestamp is %s, not epoch milliseconds", kindName(get(n, "timestamp")))
		return
	}
	t.state = market.StateCompleted // the plugin read a missing state so
	at = field(n, "state")
	if s := name(get(n, "state")); s != "" {
		t.state = market.State(strings.ToUpper(s))
		if !slices.Contains(market.States(), t.state) {
			bad("its state %q is none of the plugin's eight", truncate(s, 40))
			return
		}
	}
	if e, ok := text(get(n, "error")); ok {
		t.errorCode = e
	}
	item, notes, sk := f.readItem(get(n, "item"))
	if sk != nil {
		if at = sk.at; at == nil {
			at = n
		}
		bad("%s", sk.reason)
		return
	}
	for _, s := range notes {
		src.note(NoteShortened, t.where, "%s: %s", what, s)
	}
	t.item = item
	src.transactions = append(src.transactions, t)
}

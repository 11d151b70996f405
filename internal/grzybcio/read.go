package grzybcio

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

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

// The sections of each file, in the order the plugin writes them.
var (
	listingsSections   = []string{"listings", "next-id", "expiry-outbox", "pending-sales", "pending-returns"}
	marketDataSections = []string{"favorites", "mailbox", "alerts", "ratings", "transactions"}
)

// The keys without which the plugin's entries are not whole: the plugin
// writes each of them every time, the item among the first (Java's HashMap
// order), so an entry that has them all, its item followed by more, was
// not cut short.
var (
	listingKeys     = []string{"id", "seller", "item", "price", "timestamp"}
	transactionKeys = []string{"id", "listingId", "buyer", "seller", "item", "price", "timestamp"}
)

// The entries of the files, read and checked, before they are loaded. Each
// keeps where it is in its file, for what is said about it.

// alertEntry is one of the plugin's price alerts.
type alertEntry struct {
	at      position
	id      uuid.UUID // uuid.Nil when the file has none usable
	query   string
	max     float64
	created int64
}

// ratingEntry is one of the plugin's ratings: a transaction's stars.
type ratingEntry struct {
	at    position
	stars int
}

type listingEntry struct {
	at         position
	id         int64
	seller     uuid.UUID
	sellerName string // "" when the file has none
	item       market.ItemStack
	// price is the file's price; badPrice, when set, says why it has none.
	price    float64
	badPrice string
	created  int64 // unix ms
}

type mailEntry struct {
	at      position
	owner   uuid.UUID
	id      uuid.UUID // uuid.Nil: the file gives none (pending returns, the outbox)
	key     string    // what makes the entry's stack id when it has no id
	item    market.ItemStack
	reason  string
	created int64   // unix ms; 0: unknown
	prev    float64 // the previous price, 0: none
}

type txEntry struct {
	at                    position
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

// notes collects what is said about entries as they are read.
type notes []Note

func (ns *notes) add(kind NoteKind, where, format string, args ...any) {
	*ns = append(*ns, Note{Kind: kind, Where: where, Text: fmt.Sprintf(format, args...)})
}

// entryMap checks that a list entry is a map, tagged with want or untagged.
func entryMap(f *file, n *yaml.Node, what, want string, ns *notes) bool {
	if n.Kind != yaml.MappingNode {
		ns.add(NoteSkipped, f.where(n), "%s skipped: it is %s, not a map", what, kindName(n))
		return false
	}
	if tag, ok := text(get(n, "==")); ok && want != "" && tag != want {
		ns.add(NoteSkipped, f.where(n), "%s skipped: it is a %q, not a %s", what, truncate(tag, 60), want)
		return false
	}
	return true
}

// whole reports whether entry n has every one of keys, its item not the
// last of them: the plugin writes the item among an entry's first keys, so
// an entry that ends in it may have been cut in it.
func whole(n *yaml.Node, keys []string) bool {
	if n.Kind != yaml.MappingNode || len(n.Content) < 2 {
		return false
	}
	for _, k := range keys {
		if get(n, k) == nil {
			return false
		}
	}
	return deref(n.Content[len(n.Content)-2]).Value != "item"
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

// readListing reads one entry of listings. An entry without a usable id,
// seller, time or item is skipped, as the plugin skipped it; one whose
// price is unusable is kept with badPrice set, for its item goes back to
// its seller.
func readListing(f *file, n *yaml.Node, ns *notes) (listingEntry, bool) {
	what := "listing"
	if id, ok := integer(get(n, "id")); ok {
		what = "listing #" + strconv.FormatInt(id, 10)
	}
	if !entryMap(f, n, what, listingTag, ns) {
		return listingEntry{}, false
	}
	bad := func(at *yaml.Node, format string, args ...any) {
		ns.add(NoteSkipped, f.where(at), "%s skipped: %s", what, fmt.Sprintf(format, args...))
	}
	l := listingEntry{at: f.at(n)}
	var ok bool
	if l.id, ok = integer(get(n, "id")); !ok || l.id < 1 || l.id > 1<<31-1 {
		bad(field(n, "id"), "its id is %s, not a positive whole number", kindName(get(n, "id")))
		return l, false
	}
	if l.seller, ok = player(get(n, "seller")); !ok {
		bad(field(n, "seller"), "its seller is %s, not a player's UUID", kindName(get(n, "seller")))
		return l, false
	}
	l.sellerName = name(get(n, "sellerName"))
	if l.price, ok = number(get(n, "price")); !ok {
		l.badPrice = fmt.Sprintf("its price is %s, not a number", kindName(get(n, "price")))
	}
	if l.created, ok = integer(get(n, "timestamp")); !ok {
		bad(field(n, "timestamp"), "its timestamp is %s, not epoch milliseconds", kindName(get(n, "timestamp")))
		return l, false
	}
	item, itemNotes, sk := f.readItem(get(n, "item"))
	if sk != nil {
		at := sk.at
		if at == nil {
			at = n
		}
		bad(at, "%s", sk.reason)
		return l, false
	}
	for _, t := range itemNotes {
		ns.add(NoteShortened, l.at.String(), "%s: %s", what, t)
	}
	l.item = item
	return l, true
}

// readOutbox reads an expiry the plugin had in flight: the item of listing
// k on its way back to its seller.
func readOutbox(f *file, k, n *yaml.Node, ns *notes) (mailEntry, bool) {
	what := "expiry in flight of listing " + truncate(k.Value, 20)
	if !entryMap(f, n, what, "", ns) {
		return mailEntry{}, false
	}
	m := mailEntry{at: f.at(n), reason: "expired", key: "outbox\x00" + k.Value}
	var ok bool
	if m.owner, ok = player(get(n, "seller")); !ok {
		ns.add(NoteSkipped, m.at.String(), "%s skipped: its seller is %s, not a player's UUID", what, kindName(get(n, "seller")))
		return m, false
	}
	if r := name(get(n, "reason")); r != "" {
		m.reason = r
	}
	m.prev, _ = number(get(n, "price"))
	return m, readMailItem(f, n, &m, what, ns)
}

// readPendingReturns reads the items the plugin owed an offline seller k.
func readPendingReturns(f *file, k, n *yaml.Node, ns *notes) []mailEntry {
	owner, ok := player(k)
	if !ok {
		ns.add(NoteSkipped, f.where(k), "pending returns of %s skipped: not a player's UUID", kindName(k))
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		ns.add(NoteSkipped, f.where(n), "pending returns of %s skipped: %s, not a list", owner, kindName(n))
		return nil
	}
	var out []mailEntry
	for i, e := range n.Content {
		e = deref(e)
		m := mailEntry{at: f.at(e), owner: owner, reason: "returned", key: fmt.Sprintf("return\x00%s\x00%d", owner, i)}
		item, itemNotes, sk := f.readItem(e)
		what := fmt.Sprintf("pending return %d of %s", i+1, owner)
		if sk != nil {
			ns.add(NoteSkipped, f.where(e), "%s skipped: %s", what, sk.reason)
			continue
		}
		for _, t := range itemNotes {
			ns.add(NoteShortened, m.at.String(), "%s: %s", what, t)
		}
		m.item = item
		out = append(out, m)
	}
	return out
}

// saleNotices counts the sale notices waiting for an offline seller (or,
// in the legacy by-name section, for many).
func saleNotices(n *yaml.Node) int {
	count := 0
	switch n.Kind {
	case yaml.SequenceNode:
		count = len(n.Content)
	case yaml.MappingNode:
		pairs(n, func(_, w *yaml.Node) error {
			if w.Kind == yaml.SequenceNode {
				count += len(w.Content)
			}
			return nil
		})
	}
	return count
}

// readMailItem reads the item of a mail-like entry n into m.
func readMailItem(f *file, n *yaml.Node, m *mailEntry, what string, ns *notes) bool {
	item, itemNotes, sk := f.readItem(get(n, "item"))
	if sk != nil {
		at := sk.at
		if at == nil {
			at = n
		}
		ns.add(NoteSkipped, f.where(at), "%s skipped: %s", what, sk.reason)
		return false
	}
	for _, t := range itemNotes {
		ns.add(NoteShortened, m.at.String(), "%s: %s", what, t)
	}
	m.item = item
	return true
}

// ownerList checks a per-player entry of market-data.yml: a player's UUID
// with a list.
func ownerList(f *file, section string, k, v *yaml.Node, ns *notes) (uuid.UUID, bool) {
	owner, ok := player(k)
	if !ok || v.Kind != yaml.SequenceNode {
		ns.add(NoteSkipped, f.where(k), "%s of %s skipped: not a player's UUID with a list", section, kindName(k))
		return uuid.Nil, false
	}
	return owner, true
}

// favorite is one of a player's favourite listings.
type favorite struct {
	id int64
	at position
}

// readFavorites reads a player's favourite listing ids.
func readFavorites(f *file, k, v *yaml.Node, ns *notes) (uuid.UUID, []favorite) {
	owner, ok := ownerList(f, "favorites", k, v, ns)
	if !ok {
		return owner, nil
	}
	var ids []favorite
	for _, e := range v.Content {
		e = deref(e)
		if id, ok := integer(e); ok && id > 0 && id <= 1<<31-1 {
			ids = append(ids, favorite{id, f.at(e)})
		} else {
			ns.add(NoteSkipped, f.where(e), "a favourite of %s skipped: %s, not a listing id", owner, kindName(e))
		}
	}
	return owner, ids
}

// readAlerts reads a player's price alerts.
func readAlerts(f *file, k, v *yaml.Node, ns *notes) (uuid.UUID, []alertEntry) {
	owner, ok := ownerList(f, "alerts", k, v, ns)
	if !ok {
		return owner, nil
	}
	var out []alertEntry
	for _, e := range v.Content {
		e = deref(e)
		if !entryMap(f, e, "an alert of "+owner.String(), "", ns) {
			continue
		}
		a := alertEntry{at: f.at(e)}
		var ok bool
		a.query, _ = text(get(e, "query"))
		if a.max, ok = number(get(e, "maxPrice")); !ok {
			ns.add(NoteSkipped, a.at.String(), "an alert of %s skipped: its maxPrice is %s, not a number", owner, kindName(get(e, "maxPrice")))
			continue
		}
		a.created, _ = integer(get(e, "createdAt"))
		a.id, _ = player(get(e, "id"))
		out = append(out, a)
	}
	return owner, out
}

// readMailbox reads a player's mailbox.
func readMailbox(f *file, k, n *yaml.Node, ns *notes) []mailEntry {
	owner, ok := player(k)
	if !ok {
		ns.add(NoteSkipped, f.where(k), "mailbox of %s skipped: not a player's UUID", kindName(k))
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		ns.add(NoteSkipped, f.where(n), "mailbox of %s skipped: %s, not a list", owner, kindName(n))
		return nil
	}
	var out []mailEntry
	for _, e := range n.Content {
		e = deref(e)
		what := "mail of " + owner.String()
		if !entryMap(f, e, what, "", ns) {
			continue
		}
		m := mailEntry{at: f.at(e), owner: owner}
		if m.id, ok = player(get(e, "id")); !ok {
			ns.add(NoteSkipped, m.at.String(), "%s skipped: its id is %s, not a UUID", what, kindName(get(e, "id")))
			continue
		}
		what = "mail " + m.id.String()
		if m.reason = name(get(e, "reason")); m.reason == "" {
			ns.add(NoteSkipped, m.at.String(), "%s skipped: it has no reason", what)
			continue
		}
		if m.created, ok = integer(get(e, "timestamp")); !ok {
			ns.add(NoteSkipped, m.at.String(), "%s skipped: its timestamp is %s, not epoch milliseconds", what, kindName(get(e, "timestamp")))
			continue
		}
		if p := get(e, "previousPrice"); !isNull(p) {
			if m.prev, ok = number(p); !ok {
				ns.add(NoteSkipped, m.at.String(), "%s skipped: its previousPrice is %s, not a number", what, kindName(p))
				continue
			}
		}
		m.key = "mail\x00" + m.id.String()
		if readMailItem(f, e, &m, what, ns) {
			out = append(out, m)
		}
	}
	return out
}

// readRating reads one rating: the plugin kept one per transaction, a later
// one replacing an earlier.
func readRating(f *file, n *yaml.Node, ns *notes) (uuid.UUID, ratingEntry, bool) {
	if !entryMap(f, n, "rating", "", ns) {
		return uuid.Nil, ratingEntry{}, false
	}
	id, ok := player(get(n, "transactionId"))
	if !ok {
		ns.add(NoteSkipped, f.where(n), "rating skipped: its transactionId is %s, not a UUID", kindName(get(n, "transactionId")))
		return id, ratingEntry{}, false
	}
	stars, ok := integer(get(n, "stars"))
	if !ok || stars < 1 || stars > 5 {
		ns.add(NoteSkipped, f.where(n), "rating of transaction %s skipped: its stars are %s, not 1 to 5", id, kindName(get(n, "stars")))
		return id, ratingEntry{}, false
	}
	return id, ratingEntry{at: f.at(n), stars: int(stars)}, true
}

func readTransaction(f *file, n *yaml.Node, ns *notes) (txEntry, bool) {
	what := "transaction"
	if id, ok := text(get(n, "id")); ok {
		what = "transaction " + truncate(id, 40)
	}
	if !entryMap(f, n, what, "", ns) {
		return txEntry{}, false
	}
	t := txEntry{at: f.at(n)}
	// at is the field a problem is in.
	at := n
	bad := func(format string, args ...any) {
		ns.add(NoteSkipped, f.where(at), "%s skipped: %s", what, fmt.Sprintf(format, args...))
	}
	var ok bool
	if at = field(n, "id"); true {
		t.id, ok = player(get(n, "id"))
	}
	if !ok {
		bad("its id is %s, not a UUID", kindName(get(n, "id")))
		return t, false
	}
	if at = field(n, "listingId"); true {
		t.listingID, ok = integer(get(n, "listingId"))
	}
	if !ok || t.listingID < 0 || t.listingID > 1<<31-1 {
		bad("its listingId is %s, not a listing id", kindName(get(n, "listingId")))
		return t, false
	}
	if at = field(n, "buyer"); true {
		t.buyer, ok = player(get(n, "buyer"))
	}
	if !ok {
		bad("its buyer is %s, not a player's UUID", kindName(get(n, "buyer")))
		return t, false
	}
	if at = field(n, "seller"); true {
		t.seller, ok = player(get(n, "seller"))
	}
	if !ok {
		bad("its seller is %s, not a player's UUID", kindName(get(n, "seller")))
		return t, false
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
			return t, false
		}
	}
	at = field(n, "timestamp")
	if t.created, ok = integer(get(n, "timestamp")); !ok {
		bad("its timestamp is %s, not epoch milliseconds", kindName(get(n, "timestamp")))
		return t, false
	}
	t.state = market.StateCompleted // the plugin read a missing state so
	at = field(n, "state")
	if s := name(get(n, "state")); s != "" {
		t.state = market.State(strings.ToUpper(s))
		if !slices.Contains(market.States(), t.state) {
			bad("its state %q is none of the plugin's eight", truncate(s, 40))
			return t, false
		}
	}
	if e, ok := text(get(n, "error")); ok {
		t.errorCode = e
	}
	item, itemNotes, sk := f.readItem(get(n, "item"))
	if sk != nil {
		if at = sk.at; at == nil {
			at = n
		}
		bad("%s", sk.reason)
		return t, false
	}
	for _, s := range itemNotes {
		ns.add(NoteShortened, t.at.String(), "%s: %s", what, s)
	}
	t.item = item
	return t, true
}

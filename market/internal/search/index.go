// Package search is the market's search index: the listings filed by their
// words, categories, seller and material as roaring bitmaps, kept in order
// by price, unit price, amount and expiry (Order), the parsing of search
// text (ParseText), and the matching and paging of a query over them
// (Match, Page). It also holds the reverse of a search, the index of price
// alerts a new listing fires (Alerts), and the listing id table (Table) the
// market keeps its listings in.
//
// It exists so that the index, with its own vocabulary of tokens, grams,
// bitmaps and orders, can be read and tested apart from the service. It
// works over listing ids and keys: the market hands it a Listing (id,
// seller index, item, price, expiry) when a listing comes or goes, and a
// function from id to sort key where a page needs one; it never looks into
// the market's records (Table and Alerts hold them as opaque values of a
// type parameter). It imports market/internal/item, market/catalog and
// market/playertext, never market. The market calls it under its own lock,
// a writer under the write lock and readers under the read lock: what a
// reader changes (a gram's bitmap, brought up to date, grams.go) has a
// mutex of its own.
package search

import (
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/internal/item"
	"github.com/rynek/rynek/market/playertext"
)

// Index answers searches without looking at every listing.
//
// Matching: a query is split into words (appendTokens); a listing matches a
// word when one of its own words contains the query word as a substring
// ("sword" finds DIAMOND_SWORD, "lodz" finds "Łódź"). Every query word must
// match. Listing words come from the material key and readable name, the
// display name and lore as the console shows them (playertext.Plain: no §
// codes, no escape sequences or what they hid), enchantment keys and names,
// and the seller's name as shown (playertext.Sanitize): what can be found
// is what can be seen.
//
//   - Each distinct word (token) has a bitmap of the listings that carry it.
//   - A query word of 3+ letters is looked up in the vocabulary through a
//     bigram index of the vocabulary (only tokens that share the query's rarest
//     bigram are compared), and the bitmaps of the matching tokens are OR-ed.
//   - Query words of 1 or 2 letters would match a large part of the
//     vocabulary, so the index keeps one bitmap per 1- and 2-letter gram,
//     which its readers bring up to date with the listings (grams.go).
//     That keeps broad queries ("a") O(bitmap) instead of O(matching
//     tokens).
//
// Ordering: newest/oldest is id order (ids grow with time), read straight off
// the bitmap. Price, unit price and amount have an order each (order.go); a
// page is produced either by walking the order and testing membership (broad
// results) or by collecting the matches and sorting them (narrow results),
// whichever the estimate says is cheaper.
//
// Loading: while loading, add skips the gram bitmaps and collects sort keys;
// finishLoad then sorts each order once and builds the grams from the token
// bitmaps, which is several times faster than a million incremental updates.
type Index struct {
	active *roaring.Bitmap

	vocab      []string
	tokID      map[string]uint32
	tokBM      []*roaring.Bitmap
	tokGrams   [][]uint32          // per token: ids of its 1- and 2-grams
	vocabGrams map[string][]uint32 // bigram -> tokens containing it

	gramID  map[string]uint32
	grams   []*gramBitmap // brought up to date by their readers (grams.go)
	gramLog gramLog       // the changes they may not have taken in

	cats       [catalog.NumCategories]*roaring.Bitmap
	sellers    map[int32]*roaring.Bitmap
	byMaterial map[uint16]*roaring.Bitmap // listings by material, for the material filter

	byPrice, byUnit, byAmount, byExpiry *Order
	auctions                            *roaring.Bitmap // listings sold by auction

	// Token ids cached per material and per seller: most listings have no
	// name, lore or enchantment, so their words are their material's and
	// their seller's.
	matToks    [][]uint32
	sellerToks map[int32][]uint32
	tokSeen    []uint32
	tokGen     uint32

	loading bool
	pending [4][]Key // price, unit, amount, expiry keys collected while loading

	expiry // the listings past their expiry not swept yet (expiry.go)
}

// Key orders listings by a key and then by id, so that equal keys have a
// stable order.
type Key struct {
	K  int64
	ID uint32
}

func lessKey(a, b Key) bool {
	if a.K != b.K {
		return a.K < b.K
	}
	return a.ID < b.ID
}

// A Listing is what the index files a listing under: its id, its seller (by
// the market's player index), its item (words, material, categories) and
// the price and expiry it is ordered by. None of these change while the
// listing exists.
type Listing struct {
	ID      uint32
	Seller  int32
	Item    item.Item
	Price   int64 // cents
	Expires int64 // unix ms
	Auction bool  // sold by auction (Filter.Kind)
}

// By names an order of listings: by id (the order they were made in),
// price, unit price or amount.
type By uint8

// The orders a page can be read in.
const (
	ByID By = iota
	ByPrice
	ByUnit
	ByAmount
	ByExpiry
)

// New returns an empty index.
func New() *Index {
	ix := &Index{
		active:     roaring.New(),
		tokID:      map[string]uint32{},
		vocabGrams: map[string][]uint32{},
		gramID:     map[string]uint32{},
		sellers:    map[int32]*roaring.Bitmap{},
		byMaterial: map[uint16]*roaring.Bitmap{},
		byPrice:    newOrder(),
		byUnit:     newOrder(),
		byAmount:   newOrder(),
		byExpiry:   newOrder(),
		auctions:   roaring.New(),
		matToks:    make([][]uint32, catalog.MaterialCapacity),
		sellerToks: map[int32][]uint32{},
		expiry:     newExpiry(),
	}
	for i := range ix.cats {
		ix.cats[i] = roaring.New()
	}
	return ix
}

// UnitKey is the unit price in 1/1000 of a cent, so that ordering by unit
// price is exact for every amount up to 64.
func UnitKey(price int64, amount uint8) int64 {
	if amount == 0 {
		amount = 1
	}
	return price * 1000 / int64(amount)
}

// wordsOf appends the words of text to dst as token ids.
func (ix *Index) wordsOf(dst []uint32, text string) []uint32 {
	var buf [16]string
	for _, w := range playertext.AppendWords(buf[:0], text) {
		dst = append(dst, ix.token(w))
	}
	return dst
}

// TokenIDs returns the distinct token ids of a listing: its material's and
// seller's (cached) and those of its name, lore and enchantments.
func (ix *Index) TokenIDs(dst []uint32, r *Listing, sellerName string) []uint32 {
	dst = dst[:0]
	mt := ix.matToks[r.Item.Mat]
	if mt == nil {
		info := catalog.Material(r.Item.Mat)
		mt = ix.wordsOf(ix.wordsOf(ix.wordsOf(nil, info.Key), info.Name), info.PolishWords)
		ix.matToks[r.Item.Mat] = mt
	}
	st, ok := ix.sellerToks[r.Seller]
	if !ok {
		st = ix.wordsOf(nil, playertext.Sanitize(sellerName))
		ix.sellerToks[r.Seller] = st
	}
	dst = append(dst, mt...)
	dst = append(dst, st...)
	if x := r.Item.X; x != nil {
		dst = ix.wordsOf(dst, playertext.Plain(x.Name))
		for _, l := range x.Lore {
			dst = ix.wordsOf(dst, playertext.Plain(l))
		}
		for _, e := range x.Ench {
			dst = ix.wordsOf(dst, catalog.Enchantment(e.ID).Key)
			dst = ix.wordsOf(dst, catalog.Enchantment(e.ID).Name)
		}
	}
	// Deduplicate with generation stamps: no sorting, no map.
	ix.tokGen++
	out := dst[:0]
	for _, t := range dst {
		if ix.tokSeen[t] != ix.tokGen {
			ix.tokSeen[t] = ix.tokGen
			out = append(out, t)
		}
	}
	return out
}

// token returns the id of word w, adding it to the vocabulary if new.
func (ix *Index) token(w string) uint32 {
	if id, ok := ix.tokID[w]; ok {
		return id
	}
	w = strings.Clone(w)
	id := uint32(len(ix.vocab))
	ix.vocab = append(ix.vocab, w)
	ix.tokID[w] = id
	ix.tokBM = append(ix.tokBM, roaring.New())
	ix.tokSeen = append(ix.tokSeen, 0)
	var grams []uint32
	var prev rune = -1
	for _, r := range w {
		grams = append(grams, ix.gram(string(r)))
		if prev >= 0 {
			bg := string([]rune{prev, r})
			grams = append(grams, ix.gram(bg))
			lst := ix.vocabGrams[bg]
			if len(lst) == 0 || lst[len(lst)-1] != id {
				ix.vocabGrams[bg] = append(lst, id)
			}
		}
		prev = r
	}
	slices.Sort(grams)
	ix.tokGrams = append(ix.tokGrams, slices.Compact(grams))
	return id
}

func (ix *Index) gram(g string) uint32 {
	if id, ok := ix.gramID[g]; ok {
		return id
	}
	id := uint32(len(ix.grams))
	ix.gramID[g] = id
	ix.newGram()
	return id
}

// Add indexes listing r; tids must be TokenIDs(r).
func (ix *Index) Add(r *Listing, tids []uint32) {
	id := r.ID
	ix.active.Add(id)
	for _, tid := range tids {
		ix.tokBM[tid].Add(id)
	}
	if !ix.loading {
		ix.logGrams(id, true, tids)
	}
	cs := r.Item.Categories()
	for c := range ix.cats {
		if cs.Has(catalog.Category(c)) {
			ix.cats[c].Add(id)
		}
	}
	sb := ix.sellers[r.Seller]
	if sb == nil {
		sb = roaring.New()
		ix.sellers[r.Seller] = sb
	}
	sb.Add(id)
	if r.Auction {
		ix.auctions.Add(id)
	}
	mb := ix.byMaterial[r.Item.Mat]
	if mb == nil {
		mb = roaring.New()
		ix.byMaterial[r.Item.Mat] = mb
	}
	mb.Add(id)
	keys := r.keys()
	if ix.loading {
		for i, k := range keys {
			ix.pending[i] = append(ix.pending[i], k)
		}
		return
	}
	for i, o := range ix.orders() {
		o.insert(keys[i])
	}
	ix.fileExpiry(keys[3])
}

// keys returns r's keys in the order of Index.orders.
func (r *Listing) keys() [4]Key {
	return [4]Key{{r.Price, r.ID}, {UnitKey(r.Price, r.Item.Amount), r.ID},
		{int64(r.Item.Amount), r.ID}, {r.Expires, r.ID}}
}

// Key is r's key in the order by (0 for ByID: the id is the order).
func (r *Listing) Key(by By) int64 {
	switch by {
	case ByPrice:
		return r.Price
	case ByUnit:
		return UnitKey(r.Price, r.Item.Amount)
	case ByAmount:
		return int64(r.Item.Amount)
	case ByExpiry:
		return r.Expires
	}
	return 0
}

// order is the order by; ByID has none (nil): the ids are the order.
func (ix *Index) order(by By) *Order {
	switch by {
	case ByPrice:
		return ix.byPrice
	case ByUnit:
		return ix.byUnit
	case ByAmount:
		return ix.byAmount
	case ByExpiry:
		return ix.byExpiry
	}
	return nil
}

func (ix *Index) orders() [4]*Order {
	return [4]*Order{ix.byPrice, ix.byUnit, ix.byAmount, ix.byExpiry}
}

// Remove undoes Add. (Add and Remove note the change for the gram bitmaps,
// which take it in when read: grams.go.)
func (ix *Index) Remove(r *Listing, tids []uint32) {
	id := r.ID
	ix.active.Remove(id)
	for _, tid := range tids {
		ix.tokBM[tid].Remove(id)
	}
	ix.logGrams(id, false, tids)
	cs := r.Item.Categories()
	for c := range ix.cats {
		if cs.Has(catalog.Category(c)) {
			ix.cats[c].Remove(id)
		}
	}
	if sb := ix.sellers[r.Seller]; sb != nil {
		sb.Remove(id)
	}
	if mb := ix.byMaterial[r.Item.Mat]; mb != nil {
		mb.Remove(id)
	}
	ix.auctions.Remove(id)
	ix.expiry.expired.Remove(id)
	keys := r.keys()
	for i, o := range ix.orders() {
		o.remove(keys[i])
	}
}

// StartLoad puts the index in loading mode, for about n listings: Add
// collects sort keys and skips the gram bitmaps until FinishLoad.
func (ix *Index) StartLoad(n int) {
	ix.loading = true
	for i := range ix.pending {
		ix.pending[i] = make([]Key, 0, n)
	}
}

// FinishLoad ends loading mode: it sorts the orders (two at a time, one per
// core), builds the gram bitmaps and compresses the bitmaps.
func (ix *Index) FinishLoad() {
	var wg sync.WaitGroup
	for i, o := range ix.orders() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o.load(ix.pending[i])
			ix.pending[i] = nil
		}()
	}
	ix.buildGrams()
	ix.optimize()
	wg.Wait()
	ix.loading = false
}

// buildGrams fills the gram bitmaps from the token bitmaps in one pass; used
// after a bulk load, where adding grams listing by listing would cost about
// a hundred bitmap insertions per listing.
func (ix *Index) buildGrams() {
	members := make([][]*roaring.Bitmap, len(ix.grams))
	for tid, gs := range ix.tokGrams {
		for _, g := range gs {
			members[g] = append(members[g], ix.tokBM[tid])
		}
	}
	for g, bms := range members {
		if len(bms) > 0 {
			ix.grams[g].bm = roaring.FastOr(bms...)
		}
		ix.grams[g].at = ix.gramLog.head() // built from the listings there are
	}
}

// optimize compresses bitmaps after a bulk load.
func (ix *Index) optimize() {
	for _, b := range ix.tokBM {
		b.RunOptimize()
	}
	for _, g := range ix.grams {
		g.bm.RunOptimize()
	}
	ix.active.RunOptimize()
}

// Seller returns the bitmap of seller's listings, nil for none. Callers
// must not modify it.
func (ix *Index) Seller(seller int32) *roaring.Bitmap { return ix.sellers[seller] }

// Material returns the bitmap of the listings of material mat, nil for
// none. Callers must not modify it.
func (ix *Index) Material(mat uint16) *roaring.Bitmap { return ix.byMaterial[mat] }

// Category returns the bitmap of the listings in category c. Callers must
// not modify it.
func (ix *Index) Category(c catalog.Category) *roaring.Bitmap { return ix.cats[c] }

// ForgetSeller drops the cached words of seller's name, for a rename: the
// listings are removed under the old words first and added under the new.
func (ix *Index) ForgetSeller(seller int32) { delete(ix.sellerToks, seller) }

// AscendExpiry calls fn for the listings in order of expiry, soonest first,
// until fn returns false: the sweep's walk. (A read of what has expired
// asks ExpiredCount, Expired or FirstExpiryAfter instead.)
func (ix *Index) AscendExpiry(fn func(Key) bool) { ix.byExpiry.Ascend(fn) }

// wordBitmap returns the listings matching one folded query word. The result
// may be shared with the index: callers must not modify it.
func (ix *Index) wordBitmap(w string) *roaring.Bitmap {
	n := utf8.RuneCountInString(w)
	if n <= 2 {
		if id, ok := ix.gramID[w]; ok {
			return ix.gramListings(id)
		}
		return roaring.New()
	}
	// Candidates: the tokens that contain the query's rarest bigram.
	var cands []uint32
	first := true
	var prev rune = -1
	for _, r := range w {
		if prev >= 0 {
			lst, ok := ix.vocabGrams[string([]rune{prev, r})]
			if !ok {
				return roaring.New()
			}
			if first || len(lst) < len(cands) {
				cands, first = lst, false
			}
		}
		prev = r
	}
	var bms []*roaring.Bitmap
	for _, tid := range cands {
		if strings.Contains(ix.vocab[tid], w) && !ix.tokBM[tid].IsEmpty() {
			bms = append(bms, ix.tokBM[tid])
		}
	}
	switch len(bms) {
	case 0:
		return roaring.New()
	case 1:
		return bms[0]
	}
	return roaring.FastOr(bms...)
}

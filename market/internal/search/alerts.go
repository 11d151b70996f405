package search

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/internal/item"
	"github.com/rynek/rynek/market/playertext"
)

// Alerts is the reverse of the index: price alerts (searches with a
// ceiling on the unit price) filed so that a new listing finds the ones it
// fires without a scan. Each alert is filed under its longest word. A
// listing looks up every piece of its own words (an alert's word matches a
// listing when it is inside one of the listing's words, as Match does), so
// it finds only the alerts whose longest word it contains. A is the
// market's handle of an alert (its record); the zero Alerts is empty.
type Alerts[A comparable] struct {
	byWord map[string][]AlertRef[A]
	gen    uint32 // stamps the alerts one listing has checked (AlertRef.seen)
	// pieces keeps, for a listing's word, its pieces that alerts are filed
	// under (nil: none). Listings' words repeat (a material's name, a
	// seller's), and looking up every piece of every word was most of a
	// new listing's alert work on the main thread. Emptied whenever a word
	// is filed, which may be a piece of some.
	pieces map[string][]string
}

// maxPieceWords bounds the words whose pieces are kept: past it, they are
// dropped and found again (a market has a few thousand distinct words).
const maxPieceWords = 1 << 16

// AlertRef is an alert in the index, with its owner (the market's player
// index) and ceiling: a word's alerts are kept by ceiling, highest first,
// so a listing stops at the first alert its unit price is above.
type AlertRef[A comparable] struct {
	Owner   int32
	MaxUnit int64 // cents per item
	Alert   A
	words   []string
	seen    uint32 // gen when a listing last checked it
}

// MaxAlertWordBytes bounds the pieces a listing looks up: a longer alert
// word is filed under its first MaxAlertWordBytes bytes (whole runes).
const MaxAlertWordBytes = 24

// alertKey is the word an alert of words is filed under.
func alertKey(words []string) string {
	longest := ""
	for _, w := range words {
		if len(w) > len(longest) {
			longest = w
		}
	}
	if len(longest) > MaxAlertWordBytes {
		cut := 0
		for i := range longest {
			if i > MaxAlertWordBytes {
				break
			}
			cut = i
		}
		longest = longest[:cut]
	}
	return longest
}

// Add files alert a of owner, which looks for words (ParseText's, at least
// one) at a unit price of at most maxUnit cents.
func (ai *Alerts[A]) Add(owner int32, a A, words []string, maxUnit int64) {
	if ai.byWord == nil {
		ai.byWord = map[string][]AlertRef[A]{}
	}
	k := alertKey(words)
	refs := ai.byWord[k]
	if len(refs) == 0 {
		clear(ai.pieces) // a new word: some listing words have one more piece
	}
	i, _ := slices.BinarySearchFunc(refs, maxUnit, func(r AlertRef[A], m int64) int { return cmp.Compare(m, r.MaxUnit) })
	ai.byWord[k] = slices.Insert(refs, i, AlertRef[A]{Owner: owner, MaxUnit: maxUnit, Alert: a, words: words})
}

// Remove undoes Add; words are the ones a was added with.
func (ai *Alerts[A]) Remove(a A, words []string) {
	k := alertKey(words)
	refs := ai.byWord[k]
	if i := slices.IndexFunc(refs, func(r AlertRef[A]) bool { return r.Alert == a }); i >= 0 {
		refs = slices.Delete(refs, i, i+1)
	}
	if len(refs) == 0 {
		delete(ai.byWord, k) // its pieces are left; they find no alert
	} else {
		ai.byWord[k] = refs
	}
}

// Len is the number of words alerts are filed under.
func (ai *Alerts[A]) Len() int { return len(ai.byWord) }

// ListingWords are the folded words a listing is found by, as Match finds
// it: its material's key, name and Polish words, its seller's name, its own
// name, lore and enchantments.
func ListingWords(dst []string, it item.Item, sellerName string) []string {
	dst = MaterialWords(dst, it.Mat)
	dst = playertext.AppendWords(dst, playertext.Sanitize(sellerName))
	if x := it.X; x != nil {
		dst = playertext.AppendWords(dst, playertext.Plain(x.Name))
		for _, l := range x.Lore {
			dst = playertext.AppendWords(dst, playertext.Plain(l))
		}
		for _, e := range x.Ench {
			dst = playertext.AppendWords(dst, catalog.Enchantment(e.ID).Key)
			dst = playertext.AppendWords(dst, catalog.Enchantment(e.ID).Name)
		}
	}
	return dst
}

// Fired returns the alerts a new listing of it by seller at price (cents)
// fires: each matches every one of its words somewhere in the listing's
// words (as Match would find it) and has a unit ceiling at or above the
// listing's unit price. A seller's own alerts never fire for their listing.
func (ai *Alerts[A]) Fired(it item.Item, price int64, seller int32, sellerName string) []AlertRef[A] {
	if len(ai.byWord) == 0 {
		return nil
	}
	words := ListingWords(nil, it, sellerName)
	unit := UnitKey(price, it.Amount)
	ai.gen++
	var out []AlertRef[A]
	for wi, w := range words {
		if slices.Contains(words[:wi], w) {
			continue
		}
		for _, piece := range ai.piecesOf(w) {
			refs := ai.byWord[piece]
			for ri := range refs {
				ref := &refs[ri]
				if unit > ref.MaxUnit*1000 {
					break // the rest are cheaper still
				}
				if ref.seen == ai.gen {
					continue
				}
				ref.seen = ai.gen
				// The piece is the alert's longest word, found: only its
				// other words are left to look for.
				if ref.Owner == seller || (len(ref.words) > 1 || len(ref.words[0]) > MaxAlertWordBytes) && !allIn(ref.words, words) {
					continue
				}
				out = append(out, *ref)
			}
		}
	}
	return out
}

// piecesOf returns the pieces of w (each starting and ending on a rune
// boundary) that alerts are filed under, in the order of their place in w.
func (ai *Alerts[A]) piecesOf(w string) []string {
	if ps, ok := ai.pieces[w]; ok {
		return ps
	}
	w = strings.Clone(w) // kept, with its pieces: not the listing's memory
	var ps []string
	for i := range w {
		for j := i + 1; j <= len(w) && j-i <= MaxAlertWordBytes; j++ {
			if j < len(w) && !utf8.RuneStart(w[j]) {
				continue
			}
			if _, ok := ai.byWord[w[i:j]]; ok {
				ps = append(ps, w[i:j])
			}
		}
	}
	if ai.pieces == nil || len(ai.pieces) >= maxPieceWords {
		ai.pieces = make(map[string][]string)
	}
	ai.pieces[w] = ps
	return ps
}

// allIn reports whether every word of want is inside some word of have.
func allIn(want, have []string) bool {
	for _, w := range want {
		if !slices.ContainsFunc(have, func(h string) bool { return strings.Contains(h, w) }) {
			return false
		}
	}
	return true
}

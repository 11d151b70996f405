package search

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/internal/item"
)

// gramWorld is listings coming and going in an index, with what each is
// filed under, to check the gram bitmaps against.
type gramWorld struct {
	ix     *Index
	rng    *rand.Rand
	mats   []uint16
	names  []string // sellers' names, by seller
	live   map[uint32]*Listing
	words  map[uint32][]string // a live listing's words, as the writer filed it
	nextID uint32
}

func newGramWorld(seed uint64) *gramWorld {
	w := &gramWorld{ix: New(), rng: rand.New(rand.NewPCG(seed, 1)), live: map[uint32]*Listing{}, words: map[uint32][]string{}, nextID: 1,
		names: []string{"Ala", "Bożena", "Zygmunt", "Óla", "Kowalski"}}
	for _, m := range []string{"DIAMOND", "OAK_LOG", "BREAD", "IRON_INGOT", "ZOMBIE_HEAD"} {
		id, ok := catalog.MaterialID(m)
		if !ok {
			panic(m)
		}
		w.mats = append(w.mats, id)
	}
	return w
}

// tids is r's token ids, noting its words. Writer only.
func (w *gramWorld) tids(r *Listing) []uint32 {
	tids := slices.Clone(w.ix.TokenIDs(nil, r, w.names[r.Seller]))
	var words []string
	for _, tid := range tids {
		words = append(words, w.ix.vocab[tid])
	}
	w.words[r.ID] = words
	return tids
}

// holds reports whether listing id's words hold word.
func (w *gramWorld) holds(id uint32, word string) bool {
	return slices.ContainsFunc(w.words[id], func(x string) bool { return strings.Contains(x, word) })
}

// step makes one change: a listing added or removed, one filed again
// under the same words (an undone removal, a new price) or a seller's
// new name for all of theirs.
func (w *gramWorld) step() {
	ids := slices.Sorted(maps.Keys(w.live))
	switch n := w.rng.IntN(10); {
	case n < 5 || len(ids) == 0:
		r := &Listing{ID: w.nextID, Seller: int32(w.rng.IntN(len(w.names))), Price: 100, Expires: 1 << 62,
			Item: item.Item{Mat: w.mats[w.rng.IntN(len(w.mats))], Amount: 1}}
		w.nextID++
		w.ix.Add(r, w.tids(r))
		w.live[r.ID] = r
	case n < 8:
		r := w.live[ids[w.rng.IntN(len(ids))]]
		w.ix.Remove(r, w.tids(r))
		delete(w.live, r.ID)
	case n < 9:
		r := w.live[ids[w.rng.IntN(len(ids))]]
		w.ix.Remove(r, w.tids(r))
		w.ix.Add(r, w.tids(r))
	default:
		seller := int32(w.rng.IntN(len(w.names)))
		var theirs []*Listing
		for _, id := range ids {
			if r := w.live[id]; r.Seller == seller {
				theirs = append(theirs, r)
				w.ix.Remove(r, w.tids(r))
			}
		}
		w.ix.ForgetSeller(seller)
		w.names[seller] = renames[w.rng.IntN(len(renames))]
		for _, r := range theirs {
			w.ix.Add(r, w.tids(r))
		}
	}
}

// renames are the names a seller may take: other letters than the old.
var renames = []string{"Ewa", "Jędrzej", "Hubert", "Wiktoria", "Ula", "Mścisław", "Zoe"}

// gramWords are 1- and 2-letter words, most of which some listing has.
var gramWords = []string{"a", "o", "d", "x", "ż", "ó", "am", "ak", "ow", "ia", "ot", "x1", "zz"}

// check compares what a search of each short word finds with the
// listings whose words hold it.
func (w *gramWorld) check(t *testing.T, when string) {
	t.Helper()
	for _, word := range gramWords {
		got := w.ix.Match(Terms{Words: []string{word}}, Filter{Category: catalog.CategoryAll, Seller: AnySeller, Material: AnyMaterial}, 0, nil, nil).ToArray()
		var want []uint32
		for id := range w.live {
			if w.holds(id, word) {
				want = append(want, id)
			}
		}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: %q finds %v, the listings' words hold it in %v", when, word, got, want)
		}
	}
}

// A search of a short word finds what the listings' words hold, whether
// the gram's bitmap was read since the last change or not, brought up to
// date by KeepGrams or not, and with the log cut often (the writer then
// bringing the grams up to date itself when nobody keeps them).
func TestGramsAreWhatTheListingsHold(t *testing.T) {
	for _, c := range []struct {
		name      string
		cut, most int
		keep      bool
	}{{"kept", 16, 1 << 20, true}, {"not kept", 16, 64, false}, {"default log", gramLogCut, gramLogMost, true}} {
		t.Run(c.name, func(t *testing.T) {
			defer func(cut, most int) { gramLogCut, gramLogMost = cut, most }(gramLogCut, gramLogMost)
			gramLogCut, gramLogMost = c.cut, c.most
			w := newGramWorld(uint64(len(c.name)))
			for i := range 3000 {
				w.step()
				if c.keep && w.rng.IntN(20) == 0 {
					w.ix.KeepGrams(nil)
				}
				if w.rng.IntN(25) == 0 {
					w.check(t, fmt.Sprintf("after change %d", i))
				}
				if n := len(w.ix.gramLog.changes); n > max(c.most, c.cut)+c.cut/4+1 {
					t.Fatalf("after change %d the log holds %d changes, cut at %d, at most %d", i, n, c.cut, c.most)
				}
			}
			w.ix.KeepGrams(nil)
			if n := w.ix.GramsBehind(); n != 0 {
				t.Errorf("after KeepGrams the grams are %d changes behind", n)
			}
			w.check(t, "at the end")
		})
	}
}

// lockYield is a Yield over a test's read lock: due every few asks, it
// lets the lock go for a moment.
type lockYield struct {
	mu *sync.RWMutex
	n  int
}

func (y *lockYield) Due() bool { y.n++; return y.n%7 == 0 }
func (y *lockYield) Pause()    { y.mu.RUnlock(); y.mu.RLock() }

// Readers bring the grams up to date under a read lock each, the keeper
// among them pausing, while the writer changes listings under the write
// lock: every search finds what the listings hold as it reads them (and
// -race finds no unguarded access).
func TestGramsReadersAndKeeperTogether(t *testing.T) {
	defer func(cut int) { gramLogCut = cut }(gramLogCut)
	gramLogCut = 32
	w := newGramWorld(9)
	var mu sync.RWMutex
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 8)
	read := func(keep bool) {
		defer wg.Done()
		y := &lockYield{mu: &mu}
		for {
			select {
			case <-stop:
				return
			default:
			}
			mu.RLock()
			if keep {
				w.ix.KeepGrams(y)
			}
			for _, word := range gramWords {
				got := w.ix.Match(Terms{Words: []string{word}}, Filter{Category: catalog.CategoryAll, Seller: AnySeller, Material: AnyMaterial}, 0, nil, nil)
				for id := range w.live {
					if holds := w.holds(id, word); holds != got.Contains(id) {
						errs <- fmt.Errorf("%q: listing %d held %v, found %v", word, id, holds, got.Contains(id))
						mu.RUnlock()
						return
					}
				}
			}
			mu.RUnlock()
		}
	}
	wg.Add(3)
	go read(true)
	go read(false)
	go read(false)
	for range 2000 {
		mu.Lock()
		w.step()
		mu.Unlock()
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// pauseYield is due once, and runs meanwhile what others do while the
// lock is let go.
type pauseYield struct {
	meanwhile func()
	done      bool
}

func (y *pauseYield) Due() bool { return !y.done }
func (y *pauseYield) Pause()    { y.done = true; y.meanwhile() }

// The keeper paused while the writer changed listings, readers brought
// every gram up to date and the writer cut the whole log: it goes on from
// what is left, and the grams hold what the listings do.
func TestKeepGramsAfterTheLogWasCutUnderIt(t *testing.T) {
	defer func(cut int) { gramLogCut = cut }(gramLogCut)
	gramLogCut = 1
	w := newGramWorld(3)
	for range 20 {
		w.step()
	}
	w.ix.KeepGrams(&pauseYield{meanwhile: func() {
		for range 5 {
			w.step()
		}
		for g := range w.ix.grams {
			w.ix.gramListings(uint32(g))
		}
		w.ix.cutGramLog()
		if n := len(w.ix.gramLog.changes); n != 0 {
			t.Fatalf("the cut left %d changes", n)
		}
	}})
	w.check(t, "after the keeper")
}

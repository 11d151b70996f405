package search

import (
	"slices"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
)

// The gram bitmaps are kept up to date by their readers, not by the
// writer. A listing's words have some fifty distinct 1- and 2-letter
// grams, most of whose bitmaps are large ("a" holds nearly every
// listing): filing a listing under each of them, and taking it out again,
// was half of what the index cost the market's main thread, which makes
// every change (a tenth of its time in the serve loop). So Add and Remove
// only note the change in a log (a listing's id and its token ids), and a
// gram's bitmap takes in the changes that concern it when somebody reads
// it: a search of a 1- or 2-letter word (wordBitmap), or the market's
// keeper (KeepGrams), a reader that brings every gram up to date every so
// often, so that the log can be cut.
//
// Each gram's bitmap has a mutex of its own: readers hold the market's
// read lock, which keeps the log still, and may bring the same gram up to
// date at once. The writer holds the market's write lock, under which no
// reader runs, to append to the log and to cut what every gram has taken
// in. No reader holds a gram's mutex while it waits for anything, nor
// pauses (Yield) holding one: a search gets a copy of the bitmap.

// gramBitmap is one gram's bitmap, holding the changes before seq at.
type gramBitmap struct {
	mu sync.Mutex
	bm *roaring.Bitmap
	at uint64
}

// gramChange is a listing filed (add) or taken out, with its token ids:
// tids[off:off+n] of the log.
type gramChange struct {
	id     uint32
	add    bool
	off, n uint32
}

// gramLog is the changes the gram bitmaps may not have taken in yet.
type gramLog struct {
	first   uint64 // the seq of changes[0]
	changes []gramChange
	tids    []uint32
	cutAt   int // the length at which the writer next cuts the log
}

// gramLogCut is how long the log grows before the writer cuts what every
// gram has taken in, and gramLogMost how long it may grow while some gram
// is behind (no keeper runs): then the writer brings the grams up to date
// itself. Variables only so that tests can cut a short log.
var (
	gramLogCut  = 4096
	gramLogMost = 1 << 16
)

// head is the seq the next change gets.
func (l *gramLog) head() uint64 { return l.first + uint64(len(l.changes)) }

// newGram adds a gram's bitmap, empty: no listing has the word that
// brings it in yet.
func (ix *Index) newGram() {
	ix.grams = append(ix.grams, &gramBitmap{bm: roaring.New(), at: ix.gramLog.head()})
}

// logGrams notes that listing id was filed (add) or taken out with token
// ids tids, for the gram bitmaps. Writer only.
func (ix *Index) logGrams(id uint32, add bool, tids []uint32) {
	l := &ix.gramLog
	if len(l.changes) >= max(l.cutAt, gramLogCut) {
		ix.cutGramLog()
	}
	l.changes = append(l.changes, gramChange{id: id, add: add, off: uint32(len(l.tids)), n: uint32(len(tids))})
	l.tids = append(l.tids, tids...)
}

// cutGramLog drops the changes every gram has taken in, after bringing
// the grams up to date itself when the log is at gramLogMost. Writer only:
// no reader holds a gram's mutex meanwhile.
func (ix *Index) cutGramLog() {
	l := &ix.gramLog
	if len(l.changes) >= gramLogMost {
		ix.KeepGrams(nil)
	}
	least := ix.leastTakenIn()
	if k := int(least - l.first); k > 0 {
		rest := l.changes[k:]
		off := uint32(len(l.tids))
		if len(rest) > 0 {
			off = rest[0].off
		}
		l.tids = l.tids[:copy(l.tids, l.tids[off:])]
		l.changes = l.changes[:copy(l.changes, rest)]
		for i := range l.changes {
			l.changes[i].off -= off
		}
		l.first = least
	}
	// A keeper behind is not asked again at every change.
	l.cutAt = len(l.changes) + gramLogCut/4
}

// apply files c's listing in gb's bitmap, or takes it out.
func (gb *gramBitmap) apply(c gramChange) {
	if c.add {
		gb.bm.Add(c.id)
	} else {
		gb.bm.Remove(c.id)
	}
}

// gramListings returns a copy of gram g's bitmap, up to date: the listings
// filed under a word with g, and perhaps some that have left since (Match
// cuts its result to the active ones). A reader: the caller holds the
// market's read lock, which keeps the log still.
func (ix *Index) gramListings(g uint32) *roaring.Bitmap {
	gb := ix.grams[g]
	gb.mu.Lock()
	defer gb.mu.Unlock()
	l := &ix.gramLog
	for seq := gb.at; seq < l.head(); seq++ {
		if c := l.changes[seq-l.first]; ix.hasGram(c, g) {
			gb.apply(c)
		}
	}
	gb.at = l.head()
	return gb.bm.Clone()
}

// hasGram reports whether one of c's words has gram g.
func (ix *Index) hasGram(c gramChange, g uint32) bool {
	for _, tid := range ix.gramLog.tids[c.off : c.off+c.n] {
		if _, ok := slices.BinarySearch(ix.tokGrams[tid], g); ok {
			return true
		}
	}
	return false
}

// KeepGrams brings every gram's bitmap up to date with the log, so that
// the writer can cut it: the market's keeper calls it every so often. It
// goes through the changes once, each into the bitmaps of its grams that
// have not taken it in. A reader: the caller holds the market's read
// lock, and y (nil: never) lets it go between two changes; the writer
// calls it too (cutGramLog).
func (ix *Index) KeepGrams(y Yield) {
	l := &ix.gramLog
	end, least := l.head(), ix.leastTakenIn()
	// The grams there are now: one made later has taken in every change
	// before end that has its word (none has).
	grams := ix.grams
	seen := make([]uint64, len(grams)) // seq+1 of the change that last named the gram
	for seq := least; seq < end; seq++ {
		if y != nil && y.Due() {
			y.Pause()
			// Meanwhile readers may have brought grams further and the
			// writer cut what all had taken in, up to end or past it.
			if seq = max(seq, l.first); seq >= end {
				break
			}
		}
		c := l.changes[seq-l.first]
		for _, tid := range l.tids[c.off : c.off+c.n] {
			for _, g := range ix.tokGrams[tid] {
				if int(g) >= len(grams) || seen[g] == seq+1 {
					continue
				}
				seen[g] = seq + 1
				gb := grams[g]
				gb.mu.Lock()
				if seq >= gb.at {
					gb.apply(c)
				}
				gb.mu.Unlock()
			}
		}
	}
	for _, gb := range grams {
		gb.mu.Lock()
		gb.at = max(gb.at, end)
		gb.mu.Unlock()
	}
}

// GramsBehind is how many changes some gram has not taken in: what
// KeepGrams has left to do. A reader.
func (ix *Index) GramsBehind() int { return int(ix.gramLog.head() - ix.leastTakenIn()) }

// leastTakenIn is the seq up to which every gram has taken in the log.
func (ix *Index) leastTakenIn() uint64 {
	least := ix.gramLog.head()
	for _, gb := range ix.grams {
		gb.mu.Lock()
		least = min(least, gb.at)
		gb.mu.Unlock()
	}
	return least
}

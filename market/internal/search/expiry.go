package search

import (
	"math"

	"github.com/RoaringBitmap/roaring/v2"
)

// The listings past their expiry that the sweep has not removed yet.
//
// Every read leaves them out, and once read them by walking the expiry
// order from its start up to now. A market opened after a week closed has
// hundreds of thousands of them, which the sweep takes some minutes to
// remove, and during those minutes every search and every count walked
// them all: the bots' ticks took four seconds each. So the index keeps
// them: expired holds the listings whose expiry is at or before
// expiredTo, which the main thread moves on as its clock goes
// (AdvanceExpiry), a bounded stretch a tick, and a read adds only the
// stretch between expiredTo and its own now.
type expiry struct {
	expired   *roaring.Bitmap
	expiredTo int64 // every listing whose expiry is at or before it is in expired
}

func newExpiry() expiry { return expiry{expired: roaring.New(), expiredTo: math.MinInt64} }

// AdvanceChunk is what the main thread's timer files at most in one call of
// AdvanceExpiry: a millisecond or two. (The market files what expired
// while it was closed at once, when it loads.)
const AdvanceChunk = 32768

// AdvanceExpiry files the listings whose expiry is at or before nowMs as
// expired, at most limit of them (negative: all; the rest at the next
// call). A clock set back starts the filing again. Main thread, under the
// market's write lock.
func (ix *Index) AdvanceExpiry(nowMs int64, limit int) {
	x := &ix.expiry
	if nowMs < x.expiredTo {
		x.expired.Clear()
		x.expiredTo = math.MinInt64
	}
	if nowMs == x.expiredTo {
		return
	}
	n, to := 0, nowMs
	ix.byExpiry.walk(false, &Key{K: x.expiredTo + 1}, func(k Key) bool {
		if k.K > nowMs {
			return false
		}
		if n == limit {
			// Cut inside the stretch: every listing of a key below this
			// one is filed, some of this key may not be.
			to = k.K - 1
			return false
		}
		n++
		x.expired.Add(k.ID)
		return true
	})
	x.expiredTo = to
}

// eachExpiredAfterFiled calls fn for the listings past their expiry at
// nowMs that AdvanceExpiry has not filed yet, giving way between chunks
// (walkPaused, y; nil: never). Those of the key just after the filing's end
// may be filed already: a filing cut inside a key files some of it.
func (ix *Index) eachExpiredAfterFiled(nowMs int64, y Yield, fn func(k Key)) {
	from := int64(math.MinInt64)
	if ix.filedFor(nowMs) {
		from = ix.expiry.expiredTo + 1
	}
	ix.byExpiry.walkPaused(false, &Key{K: from}, y, func(k Key) bool {
		if k.K > nowMs {
			return false
		}
		fn(k)
		return true
	})
}

// filedFor reports whether what is filed as expired holds for a read at
// nowMs: its now is not before the filing's (a clock set back, until the
// main thread files again). A read for which it does not walks the order
// from its start, as every read once did.
func (ix *Index) filedFor(nowMs int64) bool { return nowMs >= ix.expiry.expiredTo }

// ExpiredCount is how many listings are past their expiry at nowMs and
// still in the index.
func (ix *Index) ExpiredCount(nowMs int64) int {
	x := &ix.expiry
	n, filed := 0, ix.filedFor(nowMs)
	if filed {
		n = int(x.expired.GetCardinality())
	}
	ix.eachExpiredAfterFiled(nowMs, nil, func(k Key) {
		if !filed || k.K != x.expiredTo+1 || !x.expired.Contains(k.ID) {
			n++
		}
	})
	return n
}

// Expired returns the listings past their expiry at nowMs and still in the
// index, a bitmap of the caller's.
func (ix *Index) Expired(nowMs int64) *roaring.Bitmap {
	b := roaring.New()
	if ix.filedFor(nowMs) {
		b = ix.expiry.expired.Clone()
	}
	ix.eachExpiredAfterFiled(nowMs, nil, func(k Key) { b.Add(k.ID) })
	return b
}

// leaveOutExpired removes from res the listings past their expiry at
// nowMs, giving way as Match does.
func (ix *Index) leaveOutExpired(res *roaring.Bitmap, nowMs int64, y Yield) {
	if ix.filedFor(nowMs) {
		res.AndNot(ix.expiry.expired)
	}
	// Gathered, then taken out at once: removing one by one from a
	// bitmap of runs counts the runs at each removal.
	var ids []uint32
	ix.eachExpiredAfterFiled(nowMs, y, func(k Key) { ids = append(ids, k.ID) })
	if len(ids) > 0 {
		res.AndNot(roaring.BitmapOf(ids...))
	}
}

// FirstExpiryAfter is the soonest expiry after nowMs among the listings in
// the index; ok is false when none expires after it.
func (ix *Index) FirstExpiryAfter(nowMs int64) (at int64, ok bool) {
	ix.byExpiry.walk(false, &Key{K: nowMs + 1}, func(k Key) bool {
		at, ok = k.K, true
		return false
	})
	return at, ok
}

// fileExpiry files a listing added to the index with expiry key k: as
// expired when AdvanceExpiry has passed it.
func (ix *Index) fileExpiry(k Key) {
	if k.K <= ix.expiry.expiredTo {
		ix.expiry.expired.Add(k.ID)
	}
}

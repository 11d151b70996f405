package search

import (
	"slices"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/rynek/rynek/market/catalog"
)

// Filter is what a query asks of a listing beside its text.
type Filter struct {
	Category catalog.Category // CategoryAll: any
	Seller   int32            // the seller's index; AnySeller: any
	Material int32            // the material's id; AnyMaterial: any
	// Price (cents) and amount ranges; 0 leaves an end open.
	MinPrice, MaxPrice   int64
	MinAmount, MaxAmount int64
	// Kind keeps auctions only, fixed-price listings only, or both.
	Kind Kind
}

// Kind says which sales a Filter keeps.
type Kind uint8

// The kinds of sale a Filter keeps.
const (
	AnyKind Kind = iota
	Auctions
	FixedPrice
)

// AnySeller and AnyMaterial leave a Filter's seller and material open.
const (
	AnySeller   = -1
	AnyMaterial = -1
)

// KeyOf looks a listing's key in the order by up: false for a listing
// gone.
type KeyOf func(id uint32, by By) (int64, bool)

// Match returns the bitmap of listings live at nowMs that match t and f.
// The result is owned by the caller. Long work (a wide price range, many
// intersections) is done in chunks, giving way to a writer between two
// (y; nil: never), while the index may change: the result is cut to the
// listings active at its end.
//
// A price or amount range is applied one of two ways. Where another
// constraint leaves fewer listings than the range's stretch of its order
// holds, the listings it leaves are checked by key (key: a record lookup
// each); otherwise the stretch is walked into a bitmap (between). "sword
// price:..500" on a million listings walked some 400,000 entries, 17 ms
// of a reader holding the lock, to keep some 15,000 of the swords.
func (ix *Index) Match(t Terms, f Filter, nowMs int64, key KeyOf, y Yield) *roaring.Bitmap {
	if t.Bad {
		return roaring.New()
	}
	// Collect every constraint as a bitmap, then intersect smallest first.
	var parts []*roaring.Bitmap
	if len(t.IDs) > 0 {
		b := roaring.New()
		b.Add(t.IDs[0])
		for _, id := range t.IDs[1:] {
			if id != t.IDs[0] {
				return roaring.New() // two different exact ids never match one listing
			}
		}
		parts = append(parts, b)
	}
	for _, w := range t.Words {
		parts = append(parts, ix.wordBitmap(w))
	}
	if f.Category != catalog.CategoryAll {
		parts = append(parts, ix.cats[f.Category])
	}
	if f.Seller != AnySeller {
		if ix.sellers[f.Seller] == nil {
			return roaring.New()
		}
		parts = append(parts, ix.sellers[f.Seller])
	}
	if f.Material != AnyMaterial {
		mb := ix.byMaterial[uint16(f.Material)]
		if mb == nil {
			return roaring.New()
		}
		parts = append(parts, mb)
	}
	if f.Kind == Auctions {
		parts = append(parts, ix.auctions)
	}
	var checked []keyRange // the ranges checked by key, after the rest
	for _, r := range [...]keyRange{{ByPrice, f.MinPrice, f.MaxPrice}, {ByAmount, f.MinAmount, f.MaxAmount}} {
		if r.lo <= 0 && r.hi <= 0 {
			continue
		}
		o := ix.order(r.by)
		if key != nil && len(parts) > 0 && smallest(parts) < o.span(r.lo, r.hi) {
			checked = append(checked, r)
			continue
		}
		parts = append(parts, o.between(r.lo, r.hi, y))
	}
	var res *roaring.Bitmap
	if len(parts) == 0 {
		res = ix.active.Clone()
	} else {
		slices.SortFunc(parts, func(a, b *roaring.Bitmap) int {
			return int(a.GetCardinality()) - int(b.GetCardinality())
		})
		res = parts[0].Clone()
		for _, p := range parts[1:] {
			if res.IsEmpty() {
				break
			}
			res.And(p)
		}
		if y != nil && len(parts) > 2 && y.Due() {
			y.Pause()
		}
		res.And(ix.active)
	}
	if f.Kind == FixedPrice {
		res.AndNot(ix.auctions)
	}
	// Drop listings past their expiry that the sweep has not removed yet.
	ix.leaveOutExpired(res, nowMs, y)
	if len(checked) > 0 {
		res = keepInRanges(res, checked, key, y)
	}
	return res
}

// keyRange is a range of keys in the order by, [lo, hi]; an end at 0 is
// open.
type keyRange struct {
	by     By
	lo, hi int64
}

func (r keyRange) holds(k int64) bool { return k >= r.lo && (r.hi <= 0 || k <= r.hi) }

// smallest is the fewest listings a part holds.
func smallest(parts []*roaring.Bitmap) int {
	n := int(parts[0].GetCardinality())
	for _, p := range parts[1:] {
		n = min(n, int(p.GetCardinality()))
	}
	return n
}

// keepInRanges returns the listings of res whose keys are within every
// range, looked up by key, giving way to a writer every collectChunk
// listings (y): a listing gone by then is left out, one changed is
// checked as it is.
func keepInRanges(res *roaring.Bitmap, ranges []keyRange, key KeyOf, y Yield) *roaring.Bitmap {
	kept := make([]uint32, 0, res.GetCardinality())
	it := res.Iterator()
	for i := 1; it.HasNext(); i++ {
		id := it.Next()
		in := true
		for _, r := range ranges {
			k, ok := key(id, r.by)
			if !ok || !r.holds(k) {
				in = false
				break
			}
		}
		if in {
			kept = append(kept, id)
		}
		if y != nil && i%collectChunk == 0 && y.Due() {
			y.Pause()
		}
	}
	return roaring.BitmapOf(kept...)
}

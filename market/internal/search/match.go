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

// Match returns the bitmap of listings live at nowMs that match t and f.
// The result is owned by the caller. Long work (a wide price range, many
// intersections) is done in chunks, giving way to a writer between two
// (y; nil: never), while the index may change: the result is cut to the
// listings active at its end.
func (ix *Index) Match(t Terms, f Filter, nowMs int64, y Yield) *roaring.Bitmap {
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
	if f.MinPrice > 0 || f.MaxPrice > 0 {
		parts = append(parts, ix.byPrice.between(f.MinPrice, f.MaxPrice, y))
	}
	if f.MinAmount > 0 || f.MaxAmount > 0 {
		parts = append(parts, ix.byAmount.between(f.MinAmount, f.MaxAmount, y))
	}
	if f.Kind == Auctions {
		parts = append(parts, ix.auctions)
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
	return res
}

package market

import (
	"cmp"

	"github.com/google/btree"
)

// closedOrders holds the closed orders in the order a page of all orders
// shows them, the newest closed first (then the highest id): all of them,
// each buyer's, each material's and each buyer's of each material. A page
// of all orders (Service.Orders with All; the console's Orders pane asks
// for the player's own on the main thread) reads its page's worth of them
// from the one tree that holds exactly what it selects, from its start or
// from the place after the page before (OrderQuery.After): O(page),
// however many orders closed. Walking every order there ever was and
// sorting the closed ones took 19 ms for a buyer with 50,000 of 100,000
// closed orders, under the read lock (on the main thread, in the console);
// a page of 50 from the buyer's tree takes half a microsecond.
type closedOrders struct {
	all     *btree.BTreeG[*orderRecord]
	byBuyer map[int32]*btree.BTreeG[*orderRecord]
	byMat   map[uint16]*btree.BTreeG[*orderRecord]
	byPair  map[buyerMaterial]*btree.BTreeG[*orderRecord]
}

type buyerMaterial struct {
	buyer int32
	mat   uint16
}

func newClosedOrders() closedOrders {
	return closedOrders{all: newClosedTree(), byBuyer: map[int32]*btree.BTreeG[*orderRecord]{},
		byMat: map[uint16]*btree.BTreeG[*orderRecord]{}, byPair: map[buyerMaterial]*btree.BTreeG[*orderRecord]{}}
}

func newClosedTree() *btree.BTreeG[*orderRecord] {
	return btree.NewG(8, func(a, b *orderRecord) bool { return newerClosed(a, b) < 0 })
}

// newerClosed orders closed orders the newest closed first, then the
// highest id.
func newerClosed(a, b *orderRecord) int {
	return cmp.Or(cmp.Compare(b.closed, a.closed), cmp.Compare(b.id, a.id))
}

// add files closed order o. Records are replaced, never changed in place
// (orderRecord), so o keeps its place until remove.
func (c *closedOrders) add(o *orderRecord) {
	c.all.ReplaceOrInsert(o)
	fileClosed(c.byBuyer, o.buyer, o)
	fileClosed(c.byMat, o.mat, o)
	fileClosed(c.byPair, buyerMaterial{o.buyer, o.mat}, o)
}

// remove undoes add.
func (c *closedOrders) remove(o *orderRecord) {
	c.all.Delete(o)
	forgetClosed(c.byBuyer, o.buyer, o)
	forgetClosed(c.byMat, o.mat, o)
	forgetClosed(c.byPair, buyerMaterial{o.buyer, o.mat}, o)
}

func fileClosed[K comparable](trees map[K]*btree.BTreeG[*orderRecord], k K, o *orderRecord) {
	t := trees[k]
	if t == nil {
		t = newClosedTree()
		trees[k] = t
	}
	t.ReplaceOrInsert(o)
}

func forgetClosed[K comparable](trees map[K]*btree.BTreeG[*orderRecord], k K, o *orderRecord) {
	if t := trees[k]; t != nil {
		t.Delete(o)
		if t.Len() == 0 {
			delete(trees, k)
		}
	}
}

// tree is the closed orders of material mat (0: any) and buyer (-1: any),
// nil for none.
func (c *closedOrders) tree(mat uint16, buyer int32) *btree.BTreeG[*orderRecord] {
	switch {
	case buyer >= 0 && mat != 0:
		return c.byPair[buyerMaterial{buyer, mat}]
	case buyer >= 0:
		return c.byBuyer[buyer]
	case mat != 0:
		return c.byMat[mat]
	}
	return c.all
}

// count is how many closed orders there are of material mat (0: any) and
// buyer (-1: any).
func (c *closedOrders) count(mat uint16, buyer int32) int { return lenOf(c.tree(mat, buyer)) }

func lenOf(t *btree.BTreeG[*orderRecord]) int {
	if t == nil {
		return 0
	}
	return t.Len()
}

// each calls fn with the closed orders of material mat (0: any) and buyer
// (-1: any), the newest closed first, from the one after place after on
// (nil: from the newest), after skipping skip of them, n at most. Skipping
// walks; a place starts in the tree's own order.
func (c *closedOrders) each(mat uint16, buyer int32, after *orderRecord, skip, n int, fn func(*orderRecord)) {
	t := c.tree(mat, buyer)
	if t == nil || n <= 0 {
		return
	}
	visit := func(o *orderRecord) bool {
		switch {
		case after != nil && newerClosed(o, after) == 0: // the page before ended with it
		case skip > 0:
			skip--
		default:
			fn(o)
			n--
		}
		return n > 0
	}
	if after != nil {
		t.AscendGreaterOrEqual(after, visit)
	} else {
		t.Ascend(visit)
	}
}

package search

// A Table maps listing ids to the market's records of them (T).
//
// Why not a map: ids are dense and increasing (a persisted counter), so a
// two-level page table finds a record with two array loads and no hashing,
// and costs 8 bytes per id slot where a Go map costs 16-20 per entry. Range
// scans in id order (queries collecting sort keys) touch memory in order.
// A page holds 4,096 slots and is freed when its last listing goes, so old
// id ranges cost nothing once their listings have ended.
//
// Why 4,096: a page is then 32 KB, the largest of Go's small objects,
// which the allocator hands out from its per-processor caches. The main
// thread makes a new page when a new listing's id starts one. A page of
// 65,536 slots was 512 KB, a large object: in a test beside a 1 GB heap
// being collected, making one took p99 0.48 ms and up to 19 ms (the heap
// swept first to find room), a 32 KB page p99 0.03 ms.
type Table[T any] struct {
	pages [][]*T  // pages[id>>16][id&0xffff]
	used  []int32 // live records per page
	n     int
}

const pageBits = 12

// Get returns the record of id, nil for none.
func (t *Table[T]) Get(id uint32) *T {
	p := int(id >> pageBits)
	if p >= len(t.pages) || t.pages[p] == nil {
		return nil
	}
	return t.pages[p][id&(1<<pageBits-1)]
}

// Set makes r the record of id.
func (t *Table[T]) Set(id uint32, r *T) {
	p := int(id >> pageBits)
	for p >= len(t.pages) {
		t.pages = append(t.pages, nil)
		t.used = append(t.used, 0)
	}
	if t.pages[p] == nil {
		t.pages[p] = make([]*T, 1<<pageBits)
	}
	slot := &t.pages[p][id&(1<<pageBits-1)]
	if *slot == nil {
		t.used[p]++
		t.n++
	}
	*slot = r
}

// Delete removes the record of id.
func (t *Table[T]) Delete(id uint32) {
	p := int(id >> pageBits)
	if p >= len(t.pages) || t.pages[p] == nil {
		return
	}
	slot := &t.pages[p][id&(1<<pageBits-1)]
	if *slot == nil {
		return
	}
	*slot = nil
	t.n--
	if t.used[p]--; t.used[p] == 0 {
		t.pages[p] = nil
	}
}

// Len is the number of records.
func (t *Table[T]) Len() int { return t.n }

// Each calls fn for every record in id order.
func (t *Table[T]) Each(fn func(*T)) {
	for _, pg := range t.pages {
		for _, r := range pg {
			if r != nil {
				fn(r)
			}
		}
	}
}

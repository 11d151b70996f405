package storetest

import (
	"math"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
)

// Bookmarks checks a store's bookmarks (HoldBookmark): a named reader's
// position in the log, which only rises and survives a reopen, under a lease
// that one holder at a time has, that another takes when it ends or is
// given up, and that a holder who lost it cannot use to move the position;
// and that trimming the log keeps what a bookmark has not taken, up to the
// cap.
func Bookmarks(t *testing.T, tb Tables) {
	hold := func(t *testing.T, st market.Store, h market.BookmarkHold) market.Bookmark {
		t.Helper()
		b, err := st.HoldBookmark(h)
		must(t, err)
		return b
	}
	t.Run("a lease has one holder and the position only rises", func(t *testing.T) {
		at := tb.New(t)
		st := tb.Open(t, at)
		b := hold(t, st, market.BookmarkHold{Name: "site", Holder: "a", Through: 5, For: time.Minute})
		if !b.Held || b.Seq != 5 || b.Holder != "a" || time.Until(b.Until) < 50*time.Second {
			t.Fatalf("a new bookmark: %+v; want held by a at 5 for a minute", b)
		}
		b = hold(t, st, market.BookmarkHold{Name: "site", Holder: "b", Through: 9, For: time.Minute})
		if b.Held || b.Seq != 5 || b.Holder != "a" {
			t.Fatalf("b took a's live lease: %+v; want a's, at 5", b)
		}
		b = hold(t, st, market.BookmarkHold{Name: "site", Holder: "a", Through: 3, For: time.Minute})
		if !b.Held || b.Seq != 5 {
			t.Fatalf("the position went back: %+v; want 5", b)
		}
		b = hold(t, st, market.BookmarkHold{Name: "site", Holder: "a", Through: 8, For: time.Minute})
		if !b.Held || b.Seq != 8 {
			t.Fatalf("a renewal with 8: %+v", b)
		}
		if other := hold(t, st, market.BookmarkHold{Name: "discord", Holder: "b", Through: 2, Start: 7, For: time.Minute}); !other.Held || other.Seq != 7 {
			t.Fatalf("another name is another bookmark, starting at 7: %+v", other)
		}
		if other := hold(t, st, market.BookmarkHold{Name: "discord", Holder: "b", Start: 20, For: time.Minute}); other.Seq != 7 {
			t.Fatalf("Start moved a bookmark that was there: %+v", other)
		}
		must(t, st.Close())
		st = tb.Open(t, at)
		defer st.Close()
		b = hold(t, st, market.BookmarkHold{Name: "site", Holder: "a", For: time.Minute})
		if !b.Held || b.Seq != 8 {
			t.Fatalf("after a reopen: %+v; want held by a at 8", b)
		}
	})
	t.Run("an ended or given up lease passes to another", func(t *testing.T) {
		st := tb.Open(t, tb.New(t))
		defer st.Close()
		hold(t, st, market.BookmarkHold{Name: "site", Holder: "a", Through: 4, For: 150 * time.Millisecond})
		time.Sleep(300 * time.Millisecond)
		b := hold(t, st, market.BookmarkHold{Name: "site", Holder: "b", Through: 6, For: time.Minute})
		if !b.Held || b.Holder != "b" || b.Seq != 6 {
			t.Fatalf("b after a's lease ended: %+v; want held by b at 6", b)
		}
		b = hold(t, st, market.BookmarkHold{Name: "site", Holder: "a", Through: 10, For: time.Minute})
		if b.Held || b.Seq != 6 || b.Holder != "b" {
			t.Fatalf("a, whose lease ended, moved the position or took it back: %+v", b)
		}
		b = hold(t, st, market.BookmarkHold{Name: "site", Holder: "b"})
		if b.Held || b.Seq != 6 {
			t.Fatalf("b gave it up: %+v; want not held, at 6", b)
		}
		b = hold(t, st, market.BookmarkHold{Name: "site", Holder: "a", For: time.Minute})
		if !b.Held || b.Holder != "a" || b.Seq != 6 {
			t.Fatalf("a after b gave it up: %+v; want held by a at 6", b)
		}
	})
	t.Run("trimming keeps what a bookmark has not taken, up to the cap", func(t *testing.T) {
		st := tb.Open(t, tb.New(t))
		defer st.Close()
		for i := range 10 {
			must(t, st.Commit(&market.Batch{Events: []market.EventRow{{Kind: market.KindPlayerData, At: int64(i), Body: []byte{1}}}}))
		}
		must(t, st.Commit(&market.Batch{Published: 10}))
		hold(t, st, market.BookmarkHold{Name: "slow", Holder: "a", Through: 3, For: time.Minute})
		hold(t, st, market.BookmarkHold{Name: "fast", Holder: "a", Through: 9, For: time.Minute})
		all := market.EventTrim{Below: 11, ThroughSeq: 9, OlderThan: math.MinInt64, Limit: 100}
		first, err := st.TrimEvents(all)
		must(t, err)
		if first != 4 {
			t.Fatalf("trimmed to %d with a bookmark at 3; want 4", first)
		}
		capped := all
		capped.UnreadCap = 6
		if first, err = st.TrimEvents(capped); err != nil || first != 7 {
			t.Fatalf("trimmed to %d (%v) with the cap at 6; want 7", first, err)
		}
		hold(t, st, market.BookmarkHold{Name: "slow", Holder: "a", Through: 9, For: time.Minute})
		if first, err = st.TrimEvents(all); err != nil || first != 10 {
			t.Fatalf("trimmed to %d (%v) once every bookmark is at 9; want 10", first, err)
		}
	})
}

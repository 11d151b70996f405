package market_test

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/rynek/rynek/market"
)

// TestBookmarkIsKeptAcrossARestart: a named reader's position is the
// market's, read back by the next process, and a bad request changes
// nothing.
func TestBookmarkIsKeptAcrossARestart(t *testing.T) {
	w := newWorld(t)
	w.sell(w.alice, 0, 10)
	head := w.svc.Version()
	b, err := w.svc.HoldBookmark("site", head, 0, time.Minute)
	must(t, err)
	if !b.Held || b.Seq != head || b.Holder != w.svc.BookmarkHolder() {
		t.Fatalf("a new bookmark: %+v; want held at %d", b, head)
	}
	for _, bad := range []struct {
		name    string
		through uint64
		lease   time.Duration
		want    string
	}{
		{"", head, time.Minute, "a bookmark's name has 1 to 200 bytes, not 0"},
		{"site", head + 5, time.Minute, "bookmark site cannot move to " + strconv.FormatUint(head+5, 10) + ", ahead of the log, whose newest entry is " + strconv.FormatUint(head, 10)},
		{"site", head, 0, "a bookmark's lease is positive, not 0s"},
	} {
		_, err := w.svc.HoldBookmark(bad.name, bad.through, 0, bad.lease)
		var me *market.Error
		if !errors.As(err, &me) || me.Code != market.CodeInvalidQuery || me.Msg != bad.want {
			t.Fatalf("HoldBookmark(%q, %d, %s): %v; want INVALID_QUERY %q", bad.name, bad.through, bad.lease, err, bad.want)
		}
	}
	must(t, w.svc.ReleaseBookmark("site"))
	w.crashAndRestart()
	b, err = w.svc.HoldBookmark("site", 0, 0, time.Minute)
	must(t, err)
	if !b.Held || b.Seq != head {
		t.Fatalf("after a restart: %+v; want held at %d", b, head)
	}
}

// TestRetentionKeepsWhatABookmarkHasNotTaken: the log keeps the entries a
// lagging reader still needs beyond MaxCount, up to MaxUnread behind the
// newest; past the cap the reader finds them trimmed.
func TestRetentionKeepsWhatABookmarkHasNotTaken(t *testing.T) {
	defer market.SetTrimEvery(0)() // each trim asks the store
	w := newWorld(t, func(c *market.Config) {
		c.EventRetention = market.EventRetention{MaxCount: 10, MaxUnread: 60}
	})
	start := w.svc.Version()
	_, err := w.svc.HoldBookmark("slow", 0, start, time.Minute)
	must(t, err)
	change := func(n int) {
		for range n {
			l := w.sell(w.alice, 0, 10)
			must(t, w.svc.RemoveListing(l.ID, w.alice))
		}
	}
	trim := func() {
		for {
			n, err := w.svc.TrimEventLog()
			must(t, err)
			if n == 0 {
				return
			}
		}
	}
	change(20) // 40 entries: past MaxCount, within MaxUnread
	trim()
	if _, err := w.svc.EventsSince(start, 100); err != nil {
		t.Fatalf("the reader's entries within the cap were trimmed: %v", err)
	}
	change(20) // 80 entries: past the cap
	trim()
	_, err = w.svc.EventsSince(start, 100)
	if !errors.Is(err, market.ErrEventsTrimmed) {
		t.Fatalf("past the cap: %v; want the entries trimmed", err)
	}
	if page, err := w.svc.EventsSince(w.svc.Version()-60, 100); err != nil || len(page.Events) == 0 {
		t.Fatalf("the newest %d entries: %v", 60, err)
	}
}

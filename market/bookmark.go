package market

import (
	"fmt"
	"time"
)

// Named readers of the event log.
//
// A program that follows the log on its own goroutine (a webhook's
// delivery) keeps its place in the market itself, as a bookmark: the seq of
// the last entry it has taken, stored by name, so that it resumes from
// there after a restart or a crash. In a network of servers one server at a
// time follows a bookmark, under a lease stored beside the position: the
// holder renews it while it reads, and when it dies another takes over
// once the lease has ended, from the stored position. Every write is
// conditional on the lease, so a server that lost it can neither move the
// position nor take it back. The log's retention keeps what a bookmark has
// not taken yet, up to a cap (EventRetention.MaxUnread).

// BookmarkHold is one HoldBookmark write.
type BookmarkHold struct {
	// Name names the bookmark; Holder the one taking the lease.
	Name, Holder string
	// Through raises the position to it; the position never goes back
	// (a smaller Through, 0 included, leaves it).
	Through uint64
	// Start is where a bookmark this write creates starts, when above
	// Through: a new reader follows the log from there on.
	Start uint64
	// For is the lease from now; 0 gives it up (when Holder holds it).
	For time.Duration
}

// Bookmark is a named reader's place in the log as stored.
type Bookmark struct {
	Name string
	// Seq is the position: every entry up to it has been taken.
	Seq uint64
	// Holder holds the lease until Until (the store's clock); Held says
	// whether the one who asked holds it now.
	Holder string
	Until  time.Time
	Held   bool
}

// maxBookmarkName bounds a bookmark's name.
const maxBookmarkName = 200

// BookmarkHolder is the name this service holds bookmarks' leases under: its
// instance's in a shared market, "local" in a market only it opens.
func (s *Service) BookmarkHolder() string {
	if sh, ok := s.store.(SharedStore); ok {
		return sh.Instance()
	}
	return "local"
}

// HoldBookmark takes or renews this service's lease on the named bookmark
// for lease, and raises its position to through (0: only the lease). A
// bookmark this call creates starts at start, or at through when that is
// larger: a new reader passes the log's head when it began following, so
// that it gets what happened from then on, not the whole kept log. It
// returns the bookmark as stored: when Held is false another server holds
// it and nothing changed. Safe from any goroutine; it waits for the store
// (a short write), so it never runs on the main thread.
func (s *Service) HoldBookmark(name string, through, start uint64, lease time.Duration) (Bookmark, error) {
	if err := s.readGuard(); err != nil {
		return Bookmark{}, err
	}
	if name == "" || len(name) > maxBookmarkName {
		return Bookmark{}, errf(CodeInvalidQuery, "a bookmark's name has 1 to %d bytes, not %d", maxBookmarkName, len(name))
	}
	if lease <= 0 {
		return Bookmark{}, errf(CodeInvalidQuery, "a bookmark's lease is positive, not %s", lease)
	}
	if head := s.Version(); max(through, start) > head {
		return Bookmark{}, errf(CodeInvalidQuery, "bookmark %s cannot move to %d, ahead of the log, whose newest entry is %d", name, max(through, start), head)
	}
	return s.holdBookmark(BookmarkHold{Name: name, Holder: s.BookmarkHolder(), Through: through, Start: start, For: lease})
}

// ReleaseBookmark gives up this service's lease on the named bookmark, so that
// another server takes it over at once rather than when the lease ends.
// Its position stays.
func (s *Service) ReleaseBookmark(name string) error {
	if err := s.readGuard(); err != nil {
		return err
	}
	_, err := s.holdBookmark(BookmarkHold{Name: name, Holder: s.BookmarkHolder()})
	return err
}

func (s *Service) holdBookmark(h BookmarkHold) (Bookmark, error) {
	c, err := s.store.HoldBookmark(h)
	if err != nil {
		return Bookmark{}, &Error{Code: CodeStore, Msg: fmt.Sprintf("bookmark %s could not be stored", h.Name), Err: err}
	}
	return c, nil
}

// OldestKept is the seq of the oldest entry the log keeps (0 while it has
// none): a reader that finds its next entries trimmed (CodeEventsTrimmed)
// goes on from just before it. Safe from any goroutine.
func (s *Service) OldestKept() uint64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.log.first
}

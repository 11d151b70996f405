package market

import "time"

// The search index's gram bitmaps (the listings under each 1- and
// 2-letter piece of a word) take in the market's changes when they are
// read, not when the main thread makes them: filing a listing under some
// fifty of them, and taking it out again, was a tenth of the main thread's
// time in the serve loop (search/grams.go). The keeper is the reader that
// reads them all, every keepGramsEvery, under the read lock and giving way
// to the main thread like any other, so that the index can forget the
// changes and a search of a short word finds little to take in.
type gramKeeper struct {
	stop chan struct{}
	done chan struct{}
}

// keepGramsEvery is how often the keeper brings the grams up to date: at
// a big server's hundred changes a second, a search of a short word then
// takes in a hundred at most.
const keepGramsEvery = time.Second

// startKeepingGrams starts the keeper, once.
func (s *Service) startKeepingGrams() {
	k := &s.keeper
	if k.stop != nil {
		return
	}
	k.stop, k.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(k.done)
		t := time.NewTicker(keepGramsEvery)
		defer t.Stop()
		for {
			select {
			case <-k.stop:
				return
			case <-t.C:
			}
			s.mu.RLock()
			y := s.yield()
			y.keeper = true
			s.ix.KeepGrams(y)
			s.mu.RUnlock()
		}
	}()
}

// stopKeepingGrams stops the keeper and waits for it.
func (s *Service) stopKeepingGrams() {
	if k := &s.keeper; k.stop != nil {
		close(k.stop)
		<-k.done
		k.stop = nil
	}
}

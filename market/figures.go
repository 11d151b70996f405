package market

// Figures are the market's running totals at one version: what a monitor
// samples every few seconds. Stats says the same and more (the top lists,
// which cost a sort and wait for the history to load); Figures costs a
// read lock held for a few loads, and never waits for the history.
type Figures struct {
	// ActiveListings is the contract's getActiveListingsCount().
	ActiveListings int
	// Volume is the contract's getMarketVolume(): the lifetime sum of
	// completed prices; Sales counts those purchases.
	Volume Money
	Sales  int64
	// Head is the newest seq of the event log: the market's version.
	Head uint64
}

// Figures returns the market's running totals, read together. Any
// goroutine; it fails with the not-ready error while the market is not
// ready.
func (s *Service) Figures() (Figures, error) {
	if err := s.readGuard(); err != nil {
		return Figures{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return Figures{ActiveListings: s.listings.Len() - s.expiredUnswept(s.nowMs()), Volume: s.volume, Sales: s.sales,
		Head: s.log.head}, nil
}

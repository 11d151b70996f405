package market

// Settlements: the auctions a sweep ends with a winner, several to a commit.
//
// Each settlement is a purchase through the saga, paid from the escrow
// (settleAuction). Ten thousand auctions ending in one second must not
// stall the main thread, and on a network each commit is a round trip to
// the database, so one sweep settles its batch of auctions in one store
// transaction: every settlement's rows and log entries, one after another,
// exactly as settleAuction would commit each alone. A commit is all or
// nothing, so a settlement is never half in the store, and recovery has
// nothing to tell apart. The settlements of one commit have different
// winners: a winner's row is written with the inventory memory holds
// (playerOp's condition), which a second settlement of the same commit
// would not see.

// settleAuctions settles ended auctions rs, each with a leader and no two
// with the same leader, in one commit, and returns how many it settled.
// When one cannot be settled (its leader is unknown, a step refuses), no
// commit is attempted for the group: each is settled on its own instead
// (settleAuction), which compensates what fails. A commit that fails
// changes nothing, and the next sweep finds the same auctions due.
func (s *Service) settleAuctions(rs []*listingRecord) (int, error) {
	if len(rs) < 2 {
		return s.settleEach(rs)
	}
	bp := s.auctionFee(s.cfg.SaleFeeBasisPoints, s.cfg.Auctions.SaleFeeBasisPoints)
	groups := make([]*sagaGroup, 0, len(rs))
	s.batch.Reset()
	for _, r := range rs {
		winner := s.playerByID[r.auction.Leader]
		if winner == nil {
			return s.settleEach(rs)
		}
		t := s.newPurchase(r, winner, Money(r.auction.Bid), bp)
		t.escrowed = true
		g := s.joinSagaGroup(&sagaRun{t: t, r: r, slot: -1, fresh: true})
		for !g.state().Terminal() {
			if err := g.step(States()[g.view.state+1]); err != nil {
				return s.settleEach(rs)
			}
		}
		groups = append(groups, g)
	}
	if err := s.submit(&s.batch, func() {
		for _, g := range groups {
			runAll(g.applies)
		}
	}, func() {
		for _, g := range groups {
			runAll(g.durable)
		}
	}); err != nil {
		return 0, err
	}
	return len(groups), nil
}

// settleEach settles rs one commit each.
func (s *Service) settleEach(rs []*listingRecord) (int, error) {
	s.batch.Reset()
	for i, r := range rs {
		if err := s.settleAuction(r); err != nil {
			return i, err
		}
	}
	return len(rs), nil
}

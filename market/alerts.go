package market

import (
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/internal/record"
	"github.com/rynek/rynek/market/internal/search"
	"github.com/rynek/rynek/market/playertext"
)

// Price alerts: a player asks to hear of new listings that match a search
// and cost at most a unit price. Each alert fires once per matching new
// listing, into the player's stored notifications, so that an offline
// player finds it too. A new listing finds its alerts through an index, not
// a scan: every alert is filed under one letter pair of its longest word,
// and a listing looks up only the pairs its own words contain.

// MaxAlertQueryBytes bounds an alert's search text.
const MaxAlertQueryBytes = record.MaxAlertQueryText

// Alert is a player's price alert.
type Alert struct {
	ID           uuid.UUID
	Query        string  // the search it matches, as Query's text
	MaxUnitPrice float64 // the highest price per item that fires it
	Created      time.Time
}

// AddAlert sets a price alert for player: new listings that query (Query's
// text: words found anywhere in a listing's name, lore, enchantments or
// seller) matches, at no more than maxUnitPrice per item (validated like a
// price, from 0.01). A player has at most Config.MaxAlertsPerPlayer.
func (s *Service) AddAlert(player uuid.UUID, query string, maxUnitPrice float64) (Alert, error) {
	if err := s.mutGuard(); err != nil {
		return Alert{}, err
	}
	p, err := s.player(player)
	if err != nil {
		return Alert{}, err
	}
	query = strings.TrimSpace(query)
	if len(query) > MaxAlertQueryBytes {
		return Alert{}, errf(CodeInvalidQuery, "an alert's search is at most %d bytes, not %d", MaxAlertQueryBytes, len(query))
	}
	pq := search.ParseText(query)
	if len(pq.Words) == 0 || len(pq.IDs) > 0 || pq.Bad {
		return Alert{}, errf(CodeInvalidQuery, "an alert needs words to look for (not #ids), not %q", playertext.Excerpt(query))
	}
	maxUnit, err := toMoney("maximum unit price", maxUnitPrice, 1, s.cfg.MaxPrice)
	if err != nil {
		return Alert{}, err
	}
	x := p.extra.clone()
	if n := len(x.alerts); n >= s.cfg.MaxAlertsPerPlayer {
		return Alert{}, errf(CodeAlertLimit, "%s has %d price alerts; the limit is %d", p.name, n, s.cfg.MaxAlertsPerPlayer)
	}
	a := alertRecord{id: uuid.New(), query: query, maxUnit: maxUnit, created: s.nowMs(), words: pq.Words}
	x.alerts = append(x.alerts, a)
	if err := s.writeExtra(p, x); err != nil {
		return Alert{}, err
	}
	return a.public(), nil
}

// RemoveAlert removes one of player's alerts.
func (s *Service) RemoveAlert(player, alert uuid.UUID) error {
	if err := s.mutGuard(); err != nil {
		return err
	}
	p, err := s.player(player)
	if err != nil {
		return err
	}
	x := p.extra.clone()
	i := slices.IndexFunc(x.alerts, func(a alertRecord) bool { return a.id == alert })
	if i < 0 {
		return errf(CodeInvalidQuery, "%s has no price alert %s", p.name, alert)
	}
	x.alerts = slices.Delete(x.alerts, i, i+1)
	return s.writeExtra(p, x)
}

// Alerts returns player's price alerts, oldest first. Any goroutine.
func (s *Service) Alerts(player uuid.UUID) ([]Alert, error) {
	if err := s.readGuard(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	p, err := s.player(player)
	if err != nil {
		return nil, err
	}
	var out []Alert
	if p.extra != nil {
		for _, a := range p.extra.alerts {
			out = append(out, a.public())
		}
	}
	return out, nil
}

func (a alertRecord) public() Alert {
	return Alert{ID: a.id, Query: a.query, MaxUnitPrice: a.maxUnit.Float(), Created: unixMilli(a.created)}
}

// alertHitsOps adds to b the writes of the alerts a new listing r fires
// (each owner's data once, with the hits appended) and returns how to apply
// them to memory once the batch commits.
func (s *Service) alertHitsOps(b *Batch, r *listingRecord, sellerName string, now int64) func() {
	// Under the write lock, as every change of the alert index: Fired
	// stamps the entries it checks.
	s.mu.Lock()
	refs := s.alerts.Fired(r.it, int64(r.price), r.seller, sellerName)
	s.mu.Unlock()
	if len(refs) == 0 {
		return nil
	}
	byOwner := map[int32]*playerExtra{}
	var owners []int32
	mat := catalog.Material(r.it.Mat).Key
	for _, ref := range refs {
		hit := alertHit{Alert: ref.Alert.id, Listing: r.id, At: now, Price: int64(r.price), Amount: r.it.Amount, Material: mat}
		x := byOwner[ref.Owner]
		if x == nil {
			owners = append(owners, ref.Owner)
			x = s.players[ref.Owner].extra
		}
		byOwner[ref.Owner] = x.withHit(hit)
	}
	blobs := make([]*dataBlob, len(owners))
	for i, o := range owners {
		blobs[i] = s.blobOf(byOwner[o])
		b.add(s.extraOp(s.players[o], blobs[i]))
		// Named in the log, so that the other servers of a network read
		// the owner's new data (and row version) too.
		b.log(EventRow{Kind: KindPlayerData, At: now, Body: record.EncodePlayerDataChanged(nil, s.players[o].id)})
	}
	return func() {
		for i, o := range owners {
			s.setNoticesLocked(s.players[o], byOwner[o], blobs[i])
		}
	}
}

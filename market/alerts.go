package market

import (
	"cmp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/catalog"
	"github.com/rynek/rynek/market/internal/item"
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

// alertIndex files each alert under its longest word. A listing looks up
// every piece of its own words (an alert's word matches a listing when it
// is inside one of the listing's words, as Query matches), so it finds only
// the alerts whose longest word it contains, without a scan.
type alertIndex struct {
	byWord map[string][]alertRef
	gen    uint32 // stamps the alerts one listing has checked (alertRecord.seen)
}

// alertRef is an alert in the index, with its owner and ceiling: a word's
// alerts are kept by ceiling, highest first, so a listing stops at the
// first alert its unit price is above.
type alertRef struct {
	owner   int32
	maxUnit Money
	a       *alertRecord
}

// maxAlertWordBytes bounds the pieces a listing looks up: a longer alert
// word is filed under its first maxAlertWordBytes bytes (whole runes).
const maxAlertWordBytes = 24

func (ai *alertIndex) key(a *alertRecord) string {
	longest := ""
	for _, w := range a.words {
		if len(w) > len(longest) {
			longest = w
		}
	}
	if len(longest) > maxAlertWordBytes {
		cut := 0
		for i := range longest {
			if i > maxAlertWordBytes {
				break
			}
			cut = i
		}
		longest = longest[:cut]
	}
	return longest
}

func (ai *alertIndex) add(owner int32, a *alertRecord) {
	if ai.byWord == nil {
		ai.byWord = map[string][]alertRef{}
	}
	k := ai.key(a)
	refs := ai.byWord[k]
	i, _ := slices.BinarySearchFunc(refs, a.maxUnit, func(r alertRef, m Money) int { return cmp.Compare(m, r.maxUnit) })
	ai.byWord[k] = slices.Insert(refs, i, alertRef{owner: owner, maxUnit: a.maxUnit, a: a})
}

func (ai *alertIndex) remove(owner int32, a *alertRecord) {
	k := ai.key(a)
	refs := ai.byWord[k]
	if i := slices.IndexFunc(refs, func(r alertRef) bool { return r.a == a }); i >= 0 {
		refs = slices.Delete(refs, i, i+1)
	}
	if len(refs) == 0 {
		delete(ai.byWord, k)
	} else {
		ai.byWord[k] = refs
	}
}

// listingWords are the folded words a listing is found by, as Query finds
// it: its material's key, name and Polish words, its seller's name, its own
// name, lore and enchantments.
func listingWords(dst []string, it item.Item, sellerName string) []string {
	info := catalog.Material(it.Mat)
	dst = playertext.AppendWords(dst, info.Key)
	dst = playertext.AppendWords(dst, info.Name)
	dst = playertext.AppendWords(dst, info.PolishWords)
	dst = playertext.AppendWords(dst, playertext.Sanitize(sellerName))
	if x := it.X; x != nil {
		dst = playertext.AppendWords(dst, playertext.Plain(x.Name))
		for _, l := range x.Lore {
			dst = playertext.AppendWords(dst, playertext.Plain(l))
		}
		for _, e := range x.Ench {
			dst = playertext.AppendWords(dst, catalog.Enchantment(e.ID).Key)
			dst = playertext.AppendWords(dst, catalog.Enchantment(e.ID).Name)
		}
	}
	return dst
}

// fired returns the alerts a new listing of it by seller at price fires:
// each matches every one of its words somewhere in the listing's words (as
// Query would find it) and has a unit ceiling at or above the listing's
// unit price. A seller's own alerts never fire for their listing.
func (ai *alertIndex) fired(it item.Item, price Money, seller int32, sellerName string) []alertRef {
	if len(ai.byWord) == 0 {
		return nil
	}
	words := listingWords(nil, it, sellerName)
	unit := search.UnitKey(int64(price), it.Amount)
	ai.gen++
	var out []alertRef
	for wi, w := range words {
		if slices.Contains(words[:wi], w) {
			continue
		}
		// Every piece of w that starts and ends on a rune boundary.
		for i := range w {
			for j := i + 1; j <= len(w) && j-i <= maxAlertWordBytes; j++ {
				if j < len(w) && !utf8.RuneStart(w[j]) {
					continue
				}
				for _, ref := range ai.byWord[w[i:j]] {
					if unit > int64(ref.maxUnit)*1000 {
						break // the rest are cheaper still
					}
					a := ref.a
					if a.seen == ai.gen {
						continue
					}
					a.seen = ai.gen
					// The piece is the alert's longest word, found: only
					// its other words are left to look for.
					if ref.owner == seller || (len(a.words) > 1 || len(a.words[0]) > maxAlertWordBytes) && !allIn(a.words, words) {
						continue
					}
					out = append(out, ref)
				}
			}
		}
	}
	return out
}

// allIn reports whether every word of want is inside some word of have.
func allIn(want, have []string) bool {
	for _, w := range want {
		if !slices.ContainsFunc(have, func(h string) bool { return strings.Contains(h, w) }) {
			return false
		}
	}
	return true
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
	// Under the write lock: fired stamps the alert records it checks,
	// which readers on other goroutines copy.
	s.mu.Lock()
	refs := s.alerts.fired(r.it, r.price, r.seller, sellerName)
	s.mu.Unlock()
	if len(refs) == 0 {
		return nil
	}
	byOwner := map[int32]*playerExtra{}
	var owners []int32
	mat := catalog.Material(r.it.Mat).Key
	for _, ref := range refs {
		x := byOwner[ref.owner]
		if x == nil {
			x = s.players[ref.owner].extra.clone()
			byOwner[ref.owner] = x
			owners = append(owners, ref.owner)
		}
		x.hits = append(x.hits, alertHit{alert: ref.a.id, listing: r.id, at: now, price: r.price, amount: r.it.Amount, material: mat})
		if over := len(x.hits) - MaxAlertHits; over > 0 {
			x.hits = slices.Delete(x.hits, 0, over)
		}
	}
	blobs := make([][]byte, len(owners))
	for i, o := range owners {
		blobs[i] = encodeExtra(byOwner[o], s.liveListing)
		b.add(s.extraOp(s.players[o], blobs[i]))
		// Named in the log, so that the other servers of a network read
		// the owner's new data (and row version) too.
		b.log(EventRow{Kind: KindPlayerData, At: now, Body: record.EncodePlayerDataChanged(nil, s.players[o].id)})
	}
	return func() {
		for i, o := range owners {
			s.setExtraLocked(s.players[o], byOwner[o], blobs[i])
		}
	}
}

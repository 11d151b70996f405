package market

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market/catalog"
)

// BulkAlertHit is a listing one of a player's price alerts found: a
// notification the player has waiting, as a live alert leaves one.
type BulkAlertHit struct {
	Alert   uuid.UUID // an alert given to SetPlayerData for the same player
	Listing int       // the listing it found; it may have left the market since
	At      time.Time // when the listing appeared, after the alert was made
	// Material and Amount are what the listing offered (a notification
	// keeps only those of its item), Price its price.
	Material string
	Amount   int
	Price    Money
}

// AddAlertHits gives a player this load adds the notifications of their
// price alerts, which SetPlayerData gave them first. Each is checked
// against its alert: a listing the alert could not have found (over its
// ceiling, before it existed) is refused, and with it the whole call. They
// are kept oldest first, the newest MaxAlertHits of them, as the live
// market keeps them.
func (k *Bulk) AddAlertHits(player uuid.UUID, hits []BulkAlertHit) error {
	bp := k.players[player]
	if bp == nil {
		return fmt.Errorf("bulk: player %s is not one this load adds", player)
	}
	if bp.extra == nil || len(bp.extra.alerts) == 0 {
		return fmt.Errorf("bulk: player %s has no price alerts to have found anything", player)
	}
	x := bp.extra
	found := make([]alertHit, 0, len(hits)) // all or none of them
	for _, h := range hits {
		i := slices.IndexFunc(x.alerts, func(a alertRecord) bool { return a.id == h.Alert })
		if i < 0 {
			return fmt.Errorf("bulk: alert %s is not one of player %s's", h.Alert, player)
		}
		a := &x.alerts[i]
		mat, ok := catalog.MaterialID(h.Material)
		switch {
		case h.Listing <= 0 || h.Listing > math.MaxInt32:
			return fmt.Errorf("bulk: alert hit on listing id %d, out of range", h.Listing)
		case !ok:
			return fmt.Errorf("bulk: alert hit on unknown material %q", h.Material)
		case h.Amount < 1 || h.Amount > catalog.Material(mat).MaxStack:
			return fmt.Errorf("bulk: alert hit on %d %s: a stack holds 1 to %d", h.Amount, catalog.Material(mat).Key, catalog.Material(mat).MaxStack)
		case h.Price <= 0 || h.Price > a.maxUnit*Money(h.Amount):
			return fmt.Errorf("bulk: alert %q (at most %s each) found %d for %s", a.query, FormatMoney(a.maxUnit), h.Amount, FormatMoney(h.Price))
		case h.At.UnixMilli() < a.created:
			return fmt.Errorf("bulk: alert %q made %v found a listing at %v, before it", a.query, unixMilli(a.created), h.At)
		}
		found = append(found, alertHit{Alert: h.Alert, Listing: uint32(h.Listing), At: h.At.UnixMilli(), Price: int64(h.Price),
			Amount: uint8(h.Amount), Material: catalog.Material(mat).Key})
	}
	x.hits = append(x.hits, found...)
	slices.SortStableFunc(x.hits, func(a, b alertHit) int { return cmp.Compare(a.At, b.At) })
	if over := len(x.hits) - MaxAlertHits; over > 0 {
		x.hits = slices.Delete(x.hits, 0, over)
	}
	return nil
}

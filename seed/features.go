package seed

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
)

// The players' own data: favourites, price alerts with what they found,
// and the mailbox.

// mark is a listing, by its place in the creation order, that one player
// has a use for.
type mark struct{ index, player int }

func sortMarks(ms []mark) {
	slices.SortFunc(ms, func(a, b mark) int { return cmp.Or(cmp.Compare(a.index, b.index), cmp.Compare(a.player, b.player)) })
}

// pickOthers picks up to n different listings that player p does not sell.
func (l *load) pickOthers(r *rand.Rand, p, n int) []int {
	var picked []int
	for try := 0; len(picked) < n && try < 20*n && l.o.Listings > 0; try++ {
		i := r.IntN(l.o.Listings)
		if int(l.plan.sellerOf[i]) != p && !slices.Contains(picked, i) {
			picked = append(picked, i)
		}
	}
	return picked
}

// planFavorites gives every player two to six favourite listings of other
// sellers, as marks for the listing phase, which learns their ids.
func (l *load) planFavorites() []mark {
	r := newRand(l.o.Rand, streamFavorites)
	var marks []mark
	for p := range l.o.Players {
		for _, i := range l.pickOthers(r, p, 2+r.IntN(5)) {
			marks = append(marks, mark{index: i, player: p})
		}
	}
	sortMarks(marks)
	return marks
}

// alertPlan is one price alert a player will have.
type alertPlan struct {
	owner int
	alert market.BulkAlert
	words []string // the query's words, as the search reads them
}

// alertPlans makes the players' price alerts and finds what they fire as
// the listings appear, as the live market does: a listing of a material
// whose words hold the alert's, by another seller, at or under its unit
// ceiling, after the alert was made. Every player's first alert is made
// shortly before a listing it finds (an anchor), so each player has an
// alert that fired; the others watch for bargains and may find nothing.
type alertPlans struct {
	g       *gen
	r       *rand.Rand
	anchors []mark
	waiting []*alertPlan   // made later than the listings reached so far, by time
	byMat   [][]*alertPlan // the alerts a material's listings may fire
	own     [][]*alertPlan
	hits    [][]market.BulkAlertHit
	// matText is each material's words as the search reads them, joined
	// by spaces (nil until an alert asks), and matching the materials each
	// query's words are in.
	matText  []string
	matching map[string][]int
}

func (l *load) planAlerts() *alertPlans {
	o, g := l.o, l.g
	a := &alertPlans{g: g, r: newRand(o.Rand, streamAlerts), byMat: make([][]*alertPlan, len(g.mats)),
		own: make([][]*alertPlan, o.Players), hits: make([][]market.BulkAlertHit, o.Players)}
	room := o.rules.MaxAlertsPerPlayer - 1 // one more can always be added
	nowMs := o.Now.UnixMilli()
	for p := range o.Players {
		if room >= 1 {
			for _, i := range l.pickOthers(a.r, p, 1) {
				a.anchors = append(a.anchors, mark{index: i, player: p})
			}
		}
		for range min(a.r.IntN(3), room-1) {
			m := g.pickMaterial(a.r)
			made := nowMs - int64((1+a.r.Float64()*19)*dayMs)
			a.waiting = append(a.waiting, a.plan(p, m, market.Money(m.base*(0.45+0.35*a.r.Float64())), made))
		}
	}
	sortMarks(a.anchors)
	slices.SortStableFunc(a.waiting, func(x, y *alertPlan) int { return x.alert.Created.Compare(y.alert.Created) })
	return a
}

// plan makes player p's alert on material m's name at a unit ceiling,
// made at unix ms made.
func (a *alertPlans) plan(p int, m *mat, ceiling market.Money, made int64) *alertPlan {
	info, _ := catalog.LookupMaterial(m.key)
	q := strings.ToLower(info.Name)
	ap := &alertPlan{owner: p, words: market.ParseSearch(q).Words,
		alert: market.BulkAlert{ID: randUUID(a.r), Query: q, MaxUnitPrice: niceCeil(max(ceiling, 1)), Created: time.UnixMilli(made)}}
	a.own[p] = append(a.own[p], ap)
	return ap
}

// watch arms ap: the listings of every material its words are in fire it.
func (a *alertPlans) watch(ap *alertPlan) {
	if a.matText == nil {
		a.matText = make([]string, len(a.g.mats))
		a.matching = map[string][]int{}
		for k := range a.g.mats {
			info, _ := catalog.LookupMaterial(a.g.mats[k].key)
			a.matText[k] = strings.Join(market.ParseSearch(info.Key+" "+info.Name).Words, " ")
		}
	}
	mats, ok := a.matching[ap.alert.Query]
	if !ok {
		for k, text := range a.matText {
			if wordsIn(ap.words, text) {
				mats = append(mats, k)
			}
		}
		a.matching[ap.alert.Query] = mats
	}
	for _, k := range mats {
		a.byMat[k] = append(a.byMat[k], ap)
	}
}

// wordsIn reports whether every word of want is inside one of the words
// text joins by spaces, as the search matches: a word has no space, so it
// is inside text only within one of its words.
func wordsIn(want []string, text string) bool {
	for _, w := range want {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return true
}

// listed is told of listing i (id) as it is added: it arms the alerts made
// by then, makes the alerts anchored on it, and records what it fires.
func (a *alertPlans) listed(i, id, seller int, m *mat, amount int, price market.Money, created int64) {
	for len(a.waiting) > 0 && a.waiting[0].alert.Created.UnixMilli() <= created {
		a.watch(a.waiting[0])
		a.waiting = a.waiting[1:]
	}
	for ; len(a.anchors) > 0 && a.anchors[0].index == i; a.anchors = a.anchors[1:] {
		unit := (price + market.Money(amount) - 1) / market.Money(amount)
		made := created - int64((1+29*a.r.Float64())*float64(time.Minute.Milliseconds()))
		a.watch(a.plan(a.anchors[0].player, m, market.Money(float64(unit)*(1+0.25*a.r.Float64())), made))
	}
	for _, ap := range a.byMat[m.idx] {
		if ap.owner == seller || price > ap.alert.MaxUnitPrice*market.Money(amount) {
			continue
		}
		h := append(a.hits[ap.owner], market.BulkAlertHit{Alert: ap.alert.ID, Listing: id, At: time.UnixMilli(created),
			Material: m.key, Amount: amount, Price: price})
		if len(h) >= 2*market.MaxAlertHits {
			h = slices.Delete(h, 0, len(h)-market.MaxAlertHits)
		}
		a.hits[ap.owner] = h
	}
}

// niceCeil rounds a price up to two significant digits, as people set a
// ceiling: 153.27 -> 160.00, 0.37 -> 0.37.
func niceCeil(m market.Money) market.Money {
	step := market.Money(1)
	for m/step >= 100 {
		step *= 10
	}
	return (m + step - 1) / step * step
}

// mail leaves one or two items in every player's mailbox: listings of
// theirs that expired in the last three days while they were away, which
// they can claim or list again at the price they had.
func (l *load) mail() error {
	o, g := l.o, l.g
	r := newRand(o.Rand, streamMail)
	nowMs, ttl := o.Now.UnixMilli(), o.ListingTTL.Milliseconds()
	for p := range o.Players {
		for range 1 + r.IntN(2) {
			m := g.pickMaterial(r)
			st := g.item(r, m, 0.08, 0.05)
			expired := nowMs - hourMs - int64(r.Float64()*3*dayMs)
			price := g.price(m, &st, expired-ttl, math.Exp(0.15+0.25*r.NormFloat64()), 0.6, 1.8)
			if _, err := l.b.AddMail(market.BulkMail{Owner: g.ids[p], ID: randUUID(r), Item: st, Reason: market.MailExpired,
				Created: time.UnixMilli(expired), PreviousPrice: price}); err != nil {
				return fmt.Errorf("mail of %q: %w", l.names[p], err)
			}
			l.res.Mail++
		}
	}
	return nil
}

// playerData gives every player their favourites, alerts and finds.
func (l *load) playerData() error {
	for p := range l.o.Players {
		var alerts []market.BulkAlert
		for _, ap := range l.alerts.own[p] {
			alerts = append(alerts, ap.alert)
		}
		if len(alerts)+len(l.favorites[p]) == 0 {
			continue
		}
		id := l.g.ids[p]
		if err := l.b.SetPlayerData(id, l.favorites[p], alerts); err != nil {
			return fmt.Errorf("favourites and alerts of %q: %w", l.names[p], err)
		}
		hits := l.alerts.hits[p]
		hits = hits[len(hits)-min(len(hits), market.MaxAlertHits):]
		if len(hits) > 0 {
			if err := l.b.AddAlertHits(id, hits); err != nil {
				return fmt.Errorf("alert finds of %q: %w", l.names[p], err)
			}
		}
		l.res.Favorites += len(l.favorites[p])
		l.res.Alerts += len(alerts)
		l.res.AlertHits += len(hits)
	}
	return nil
}

package grzybcio

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
)

// What the entries of the files become: the market's rows, through the
// bulk load, one entry at a time in the files' order.

// see adds a player the files name, or gives them the name the entry has
// when it is newer than the one they have: a listing keeps its seller's
// name of the day it was made, so the newest is the player's. Balances are
// not in the files: the economy was another plugin's.
func (l *loading) see(id uuid.UUID, name string, at int64) error {
	s := l.players[id]
	if s == nil {
		s = &seen{at: at}
		l.players[id] = s
		if name != "" {
			s.name = name
		}
		known := l.k.Summary().SkippedPlayers
		if err := l.k.AddPlayer(market.Player{ID: id, Name: playerName(s.name)}, 0); err != nil {
			return fmt.Errorf("player %s: %w", id, err)
		}
		s.kept = l.k.Summary().SkippedPlayers > known
		return nil
	}
	if name == "" || s.name != "" && at < s.at {
		return nil
	}
	renamed := name != s.name
	s.name, s.at = name, at
	if renamed {
		if err := l.k.RenamePlayer(id, playerName(name)); err != nil {
			return fmt.Errorf("player %s: %w", id, err)
		}
	}
	return nil
}

// skip notes an entry (what, at where) that the load refused, and goes on.
// A failure of the store, which ended the load, is no entry's: it stops
// the import instead.
func (l *loading) skip(where, what string, err error) error {
	if failed := l.k.Err(); failed != nil {
		return fmt.Errorf("write the market: %w", failed)
	}
	l.note(NoteSkipped, where, "%s skipped: %v", what, err)
	return nil
}

// playerName is the name a player gets from the files' name for them.
func playerName(name string) string {
	if name == "" {
		return unknownName
	}
	return truncate(strings.ReplaceAll(name, "\x00", ""), 64)
}

// cents rounds an amount of the files to cents, noting when that changed it.
func (l *loading) cents(where, what string, v float64) (market.Money, error) {
	m, err := market.RoundToCents(v)
	if err != nil {
		return 0, err
	}
	// Judged on the shortest decimal that is v, as market.PriceToMoney
	// judges a price: 19.99 has two decimals, although 19.99*100 is not
	// 1999 in binary.
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if i := strings.IndexByte(s, '.'); i >= 0 && len(s)-i-1 > 2 {
		l.r.Rounded++
		l.note(NoteRounded, where, "%s %v rounded to %s", what, v, market.FormatMoney(m))
	}
	return m, nil
}

// material counts an entry's material when the game's catalogue lacks it
// (another plugin's item, or a typo such as minecraft:unobtainium): it is
// imported as it is, and the report names it.
func (l *loading) material(key string, at position) {
	if _, ok := catalog.CatalogueMaterialID([]byte(key)); ok {
		return
	}
	if i, ok := l.unknown[key]; ok {
		l.r.UnknownMaterials[i].Entries++
		return
	}
	if l.unknown == nil {
		l.unknown = map[string]int{}
	}
	l.unknown[key] = len(l.r.UnknownMaterials)
	l.r.UnknownMaterials = append(l.r.UnknownMaterials, UnknownMaterial{Key: key, Entries: 1, First: at.String()})
}

// stackID is the id of the stack an entry brings, the same at every import
// of the same files.
func stackID(key string) uuid.UUID { return uuid.NewSHA1(stackSpace, []byte(key)) }

// listing loads one listing: onto the market under its id, or, past its
// expiry, into its seller's mailbox; one the market's rules refuse goes
// back to its seller's mailbox too, and is reported.
func (l *loading) listing(e listingEntry) error {
	what := fmt.Sprintf("listing #%d", e.id)
	if err := l.see(e.seller, e.sellerName, e.created); err != nil {
		return err
	}
	l.material(e.item.Material, e.at)
	if l.nextID > 0 && e.id >= l.nextID {
		// The plugin loads such a file (edited, or put together from
		// pieces) with max(next-id, highest id + 1): so does the import
		// (the market's next id passes every id kept), and says so. Sales
		// and favourites are held to that next id.
		if l.r.NextIDInFile == 0 {
			l.r.NextIDInFile = l.nextID
		}
		l.nextID = e.id + 1
		l.r.NextID, l.r.NextIDAt = l.nextID, e.at.String()
	}
	id := int32(e.id)
	same := sameListing(e.seller, e.created)
	if first, ok := l.listed[id]; ok {
		if first.hash == same {
			// Entries of one list start in one column.
			l.note(NoteSkipped, e.at.String(), "%s skipped: a repeat of the one at %s", what, position{e.at.file, int(first.line), e.at.col})
			return nil
		}
	} else {
		l.listed[id] = listed{hash: same, line: int32(e.at.line)}
	}
	refused := e.badPrice
	var price market.Money
	if refused == "" {
		var err error
		if price, err = l.cents(e.at.String(), what+": price", e.price); err != nil {
			refused = fmt.Sprintf("price %v: %v", e.price, err)
		}
	}
	created := time.UnixMilli(e.created)
	expires := created.Add(time.Duration(l.o.ExpiryDays) * 24 * time.Hour)
	item := e.item
	item.ID = stackID(fmt.Sprintf("listing\x00%d\x00%s\x00%d", e.id, e.seller, e.created))
	if !l.o.Now.Before(expires) {
		added, err := l.k.AddMail(market.BulkMail{Owner: e.seller, ID: stackID("expired\x00" + item.ID.String()),
			Item: item, Reason: market.MailExpired, Created: expires, PreviousPrice: max(price, 0)})
		if err != nil {
			return l.skip(e.at.String(), what, err)
		}
		if added {
			l.r.Expired++
			l.note(NoteExpired, e.at.String(), "%s expired on %s (created %s + %d days): to its seller's mailbox",
				what, expires.UTC().Format("2006-01-02 15:04"), created.UTC().Format("2006-01-02 15:04"), l.o.ExpiryDays)
		}
		return nil
	}
	if refused == "" {
		if err := l.rules.Check(item, price); err != nil {
			refused = err.Error()
		}
	}
	if refused != "" {
		return l.refuse(e, item, price, what, refused)
	}
	bl := market.BulkListing{ID: int(e.id), Seller: e.seller, Item: item, Price: price, Created: created, Expires: expires}
	added, err := l.k.AddListingKeepingID(bl)
	switch {
	case errors.Is(err, market.ErrListingIDTaken):
		l.renumber = append(l.renumber, renumbered{bl, e.at.String()})
	case err != nil:
		return l.skip(e.at.String(), what, err)
	case added:
		l.r.Listings++
		l.perSeller[e.seller]++
		l.setGot(e.id, e.id)
	}
	return nil
}

// setGot records the id a listing of the files got on the market.
func (l *loading) setGot(fileID, got int64) {
	x := l.listed[int32(fileID)]
	x.got = int32(got)
	l.listed[int32(fileID)] = x
}

// refuse puts the item of a listing the market's rules refuse back into its
// seller's mailbox, as an admin's removal would, with the price it had: the
// item stays the player's (items are conserved), and the market has no
// listing it would not allow.
func (l *loading) refuse(e listingEntry, item market.ItemStack, price market.Money, what, why string) error {
	added, err := l.k.AddMail(market.BulkMail{Owner: e.seller, ID: stackID("refused\x00" + item.ID.String()),
		Item: item, Reason: market.ReasonAdminRemoved, Created: l.o.Now, PreviousPrice: max(price, 0)})
	if err != nil {
		return l.skip(e.at.String(), what, err)
	}
	if added {
		l.r.Refused++
		l.note(NoteRefused, e.at.String(), "%s not listed: %s; its item (%dx%s) is in its seller's mailbox", what, why, item.Amount, item.Material)
	}
	return nil
}

// renumberListings gives the listings whose ids a merge's market has given
// already new ids, after every kept one.
func (l *loading) renumberListings() error {
	for _, x := range l.renumber {
		bl := x.l
		id, err := l.k.AddListing(bl.Seller, bl.Item, bl.Price, bl.Created, bl.Expires)
		if err != nil {
			if err := l.skip(x.where, fmt.Sprintf("listing #%d", bl.ID), err); err != nil {
				return err
			}
			continue
		}
		l.r.Listings++
		l.r.Renumbered++
		l.perSeller[bl.Seller]++
		l.setGot(int64(bl.ID), int64(id))
		l.note(NoteRenumbered, x.where, "listing #%d is #%d: its id was taken", bl.ID, id)
	}
	l.renumber = nil
	return nil
}

// playerData gives each player their favourites (the listings this load
// added, under the ids they got) and price alerts. The plugin compared an
// alert's maxPrice with a listing's total price; Rynek compares a ceiling
// per item, so an imported alert keeps its number as that ceiling, which
// fires for what fired before and more (a stack of many at a fair price).
func (l *loading) playerData() error {
	owners := slices.Collect(maps.Keys(l.favorites))
	for o := range l.alerts {
		if _, dup := l.favorites[o]; !dup {
			owners = append(owners, o)
		}
	}
	slices.SortFunc(owners, func(a, b uuid.UUID) int { return strings.Compare(a.String(), b.String()) })
	for _, o := range owners {
		switch s := l.players[o]; {
		case s != nil && s.kept:
			// A merge found them in the market: they keep their own, as
			// they keep their name (market.Bulk never overwrites).
			l.r.KeptPlayerData++
			continue
		case s == nil:
			l.note(NoteSkipped, l.firstPlayerData(o).String(), "the favourites and alerts of %s skipped: the files name this player nowhere else (no listing, mail or sale)", o)
			continue
		}
		var favs []int
		for _, fav := range l.favorites[o] {
			if id := fav.id; l.nextID > 0 && id >= l.nextID {
				if !l.o.Partial {
					return fav.at.errorf("a favourite of %s is listing #%d, at or above %s's next-id, %d: no such listing was ever made in it, so %s is cut short or older than %s (its backup %s.bak may be newer); --partial imports anyway",
						o, id, ListingsFile, l.nextID, ListingsFile, MarketDataFile, ListingsFile)
				}
				l.note(NoteCut, fav.at.String(), "a favourite of %s is listing #%d, at or above %s's next-id, %d: left out", o, id, ListingsFile, l.nextID)
			}
			if got := l.listed[int32(fav.id)].got; got > 0 {
				favs = append(favs, int(got))
			} else {
				l.r.FavoritesGone++
			}
		}
		var alerts []market.BulkAlert
		for _, a := range l.alerts[o] {
			ceiling, err := l.cents(a.at.String(), "alert maxPrice", a.max)
			terms := market.ParseSearch(a.query)
			if err != nil || ceiling <= 0 || len(terms.Words) == 0 || len(terms.IDs) > 0 || terms.NoMatch || len(a.query) > market.MaxAlertQueryBytes {
				l.note(NoteSkipped, a.at.String(), "an alert of %s skipped: query %q, maxPrice %v", o, truncate(a.query, 40), a.max)
				continue
			}
			alerts = append(alerts, market.BulkAlert{ID: a.id, Query: strings.TrimSpace(a.query), MaxUnitPrice: ceiling, Created: time.UnixMilli(a.created)})
		}
		if len(favs) == 0 && len(alerts) == 0 {
			continue
		}
		if err := l.k.SetPlayerData(o, favs, alerts); err != nil {
			if err := l.skip(l.firstPlayerData(o).String(), "the favourites and alerts of "+o.String(), err); err != nil {
				return err
			}
			continue
		}
		l.r.Favorites += len(favs)
		l.r.Alerts += len(alerts)
	}
	return nil
}

// firstPlayerData is the place of a player's first favourite or alert in
// the files, for a note about them all.
func (l *loading) firstPlayerData(player uuid.UUID) position {
	if favs := l.favorites[player]; len(favs) > 0 {
		return favs[0].at
	}
	return l.alerts[player][0].at
}

// mails loads a player's mail, counting it into count.
func (l *loading) mails(ms []mailEntry, count *int) error {
	for _, m := range ms {
		if err := l.mail(m, count); err != nil {
			return err
		}
	}
	return nil
}

func (l *loading) mail(m mailEntry, count *int) error {
	if err := l.see(m.owner, "", 0); err != nil {
		return err
	}
	l.material(m.item.Material, m.at)
	item := m.item
	item.ID = stackID(m.key)
	var prev market.Money
	if m.prev != 0 {
		var err error
		if prev, err = l.cents(m.at.String(), "previous price", m.prev); err != nil || prev < 0 {
			l.note(NoteShortened, m.at.String(), "previous price %v is left out: not a price", m.prev)
			prev = 0
		}
	}
	created := time.UnixMilli(m.created)
	if m.created == 0 {
		created = l.o.Now
	}
	id := m.id
	if id == uuid.Nil {
		id = stackID("mail\x00" + m.key)
	}
	added, err := l.k.AddMail(market.BulkMail{Owner: m.owner, ID: id, Item: item, Reason: m.reason, Created: created, PreviousPrice: prev})
	if err != nil {
		return l.skip(m.at.String(), "mail", err)
	}
	if added {
		*count++
	}
	return nil
}

func (l *loading) transaction(t txEntry) error {
	what := "transaction " + t.id.String()
	if err := l.see(t.buyer, t.buyerName, t.created); err != nil {
		return err
	}
	if err := l.see(t.seller, t.sellerName, t.created); err != nil {
		return err
	}
	l.material(t.item.Material, t.at)
	if l.nextID > 0 && t.listingID >= l.nextID {
		if !l.o.Partial {
			return t.at.errorf("%s sold listing #%d, at or above %s's next-id, %d: no such listing was ever made in it, so %s is cut short or older than %s (its backup %s.bak may be newer); --partial imports anyway",
				what, t.listingID, ListingsFile, l.nextID, ListingsFile, MarketDataFile, ListingsFile)
		}
		l.note(NoteCut, t.at.String(), "%s sold listing #%d, at or above %s's next-id, %d: kept as history", what, t.listingID, ListingsFile, l.nextID)
	}
	price, err := l.cents(t.at.String(), what+": price", t.price)
	if err == nil && price <= 0 {
		err = fmt.Errorf("it is not above 0.00")
	}
	if err != nil {
		l.note(NoteSkipped, t.at.String(), "%s skipped: price %v: %v", what, t.price, err)
		return nil
	}
	fee, err := l.cents(t.at.String(), what+": fee", t.fee)
	if err != nil || fee < 0 || fee > price {
		l.note(NoteSkipped, t.at.String(), "%s skipped: fee %v is not between 0 and the price", what, t.fee)
		return nil
	}
	if t.received != 0 {
		if got, err := market.RoundToCents(t.received); err == nil && got != price-fee {
			l.r.Rounded++
			l.note(NoteRounded, t.at.String(), "%s: sellerReceived %v is %s (the price less the fee, each in cents)",
				what, t.received, market.FormatMoney(price-fee))
		}
	}
	state, code := t.state, t.errorCode
	if !state.Terminal() {
		code = unfinishedPrefix + string(state)
		if t.errorCode != "" {
			code += ":" + t.errorCode
		}
		state = market.StateFailed
	}
	item := t.item
	item.ID = stackID("tx\x00" + t.id.String())
	rating, rated := l.ratings[t.id]
	delete(l.ratings, t.id) // what is left at the end rated no transaction
	if rated && state != market.StateCompleted {
		l.note(NoteSkipped, rating.at.String(), "rating of %s skipped: the transaction is %s, and only a COMPLETED sale is rated", what, state)
		rating.stars = 0
	}
	sale := market.HistoricSale{ID: t.id, ListingID: int(t.listingID), Buyer: t.buyer, Seller: t.seller,
		Item: item, Price: price, Fee: fee, State: state, ErrorCode: code, At: time.UnixMilli(t.created), Rating: rating.stars}
	// A refund (REFUND:<unix ms>, the plugin's code and Rynek's) is loaded
	// as Refund leaves one: every state to COMPLETED, then ROLLED_BACK at
	// the refund's time. One stamped before the sale's last step (the
	// states are a millisecond apart) keeps its code on the short path.
	if at, returned, ok := (market.Transaction{State: state, ErrorCode: code}).Refunded(); ok && at.UnixMilli() > t.created+5 {
		sale.ErrorCode, sale.Refunded, sale.ItemReturned = "", at, returned
	}
	before := l.k.Summary().Transactions
	_, err = l.k.AddTransaction(sale)
	if err != nil {
		return l.skip(t.at.String(), what, err)
	}
	if l.k.Summary().Transactions == before {
		return nil // a merge found it in the market already
	}
	l.r.Transactions++
	if rating.stars > 0 {
		l.r.Ratings++
	}
	if state != t.state {
		l.r.Flagged++
		l.note(NoteFlagged, t.at.String(), "%s was left %s by the plugin: kept as FAILED history (%s), no money moved", what, t.state, code)
	}
	return nil
}

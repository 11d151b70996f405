package httpapi

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
)

// Page sizes of the collections.
const (
	DefaultLimit = 50
	MaxLimit     = 500
)

// maxCursorLen bounds a cursor parameter; a real one is a few dozen bytes.
const maxCursorLen = 128

// sortParams maps the sort parameter's values to the service's orders.
var sortParams = map[string]market.SortMode{
	"newest":      market.SortNewest,
	"oldest":      market.SortOldest,
	"price":       market.SortCheapest,
	"price_desc":  market.SortExpensive,
	"unit_price":  market.SortUnitPrice,
	"amount":      market.SortLeastAmount,
	"amount_desc": market.SortAmount,
	"ending":      market.SortEnding,
}

// SortValues lists the sort parameter's values, for documentation and errors.
var SortValues = []string{"newest", "oldest", "price", "price_desc", "unit_price", "amount", "amount_desc", "ending"}

// params reads a request's query parameters strictly: every parameter must
// be one the route knows and appear at most once, with a value (?limit= is
// not the default: leaving limit out is) of valid UTF-8, so that a typo
// ("categroy"), a value lost on its way or a smuggled duplicate is an error
// instead of being silently ignored. A parameter absent reads as "".
type params struct {
	v url.Values
}

func parseParams(rawQuery string, allowed ...string) (params, error) {
	v, err := url.ParseQuery(rawQuery)
	if err != nil {
		return params{}, badParameter("", "the query string is malformed: "+err.Error())
	}
	for name, vals := range v {
		known := false
		for _, a := range allowed {
			known = known || a == name
		}
		switch {
		case !known && name == "access_token":
			return params{}, badParameter(name, "access_token is accepted only by /api/events; send the token as Authorization: Bearer")
		case !known:
			takes := " no parameters"
			if len(allowed) > 0 {
				takes = ": " + strings.Join(allowed, ", ")
			}
			return params{}, badParameter(clip(name), fmt.Sprintf("unknown parameter %q; this route takes%s", clip(name), takes))
		case len(vals) > 1:
			return params{}, badParameter(name, fmt.Sprintf("parameter %s is given %d times; give it once", name, len(vals)))
		case !utf8.ValidString(vals[0]):
			return params{}, badParameter(name, fmt.Sprintf("parameter %s is not valid UTF-8", name))
		case vals[0] == "":
			return params{}, badParameter(name, fmt.Sprintf("parameter %s has no value; give one, or leave %s out for its default", name, name))
		}
	}
	return params{v: v}, nil
}

func (p params) get(name string) string { return p.v.Get(name) }

// clip shortens text quoted back in an error.
func clip(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return strings.ToValidUTF8(s, "?")
}

// limit reads the limit parameter: 1..MaxLimit, DefaultLimit when absent.
func (p params) limit() (int, error) {
	s := p.get("limit")
	if s == "" {
		return DefaultLimit, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > MaxLimit || s[0] == '+' {
		return 0, badParameter("limit", fmt.Sprintf("limit must be a whole number from 1 to %d, got %q", MaxLimit, clip(s)))
	}
	return n, nil
}

// listingParamNames are the parameters of GET /api/listings.
var listingParamNames = []string{"q", "category", "seller", "material", "min_price", "max_price", "min_amount", "max_amount",
	"kind", "sort", "limit", "cursor"}

// parseListingQuery turns GET /api/listings's parameters into a service
// query. q is the search box's language (market.ParseQuery: words, #ids,
// price: and amount: filters), the same as the console's and the website's;
// a range it sets cannot also be given as a parameter. Prices are bounded
// by the market's own price range.
func parseListingQuery(rawQuery string, minPrice, maxPrice market.Money) (market.Query, error) {
	p, err := parseParams(rawQuery, listingParamNames...)
	if err != nil {
		return market.Query{}, err
	}
	text := p.get("q")
	if len(text) > market.MaxQueryTextBytes {
		return market.Query{}, badParameter("q", fmt.Sprintf("q is %d bytes; at most %d allowed", len(text), market.MaxQueryTextBytes))
	}
	q, err := market.ParseQuery(text, minPrice, maxPrice)
	if err != nil {
		return q, badParameter("q", err.Error())
	}
	q.Sort = market.SortNewest
	for _, c := range []struct {
		noun   string
		set    bool
		params []string
	}{
		{"price", q.MinPrice > 0 || q.MaxPrice > 0, []string{"min_price", "max_price"}},
		{"amount", q.MinAmount > 0 || q.MaxAmount > 0, []string{"min_amount", "max_amount"}},
	} {
		for _, name := range c.params {
			if c.set && p.get(name) != "" {
				return q, badParameter(name, fmt.Sprintf("q already bounds the %s with %s:; give %s or the filter, not both", c.noun, c.noun, name))
			}
		}
	}
	if s := p.get("category"); s != "" {
		c, ok := catalog.ParseCategory(s)
		if !ok {
			return q, badParameter("category", fmt.Sprintf("unknown category %q (see /api/categories)", clip(s)))
		}
		q.Category = c
	}
	if q.Seller, err = p.player("seller"); err != nil {
		return q, err
	}
	if s := p.get("material"); s != "" {
		info, ok := catalog.LookupMaterial(s)
		if !ok {
			return q, badParameter("material", fmt.Sprintf("unknown material %q", clip(s)))
		}
		q.Material = info.Key
	}
	for _, b := range []struct {
		name string
		dst  *market.Money
	}{{"min_price", &q.MinPrice}, {"max_price", &q.MaxPrice}} {
		if s := p.get(b.name); s != "" {
			m, err := market.ParsePrice(s, minPrice, maxPrice)
			if err != nil {
				return q, badParameter(b.name, fmt.Sprintf("%s must be a price from %s to %s with at most 2 decimals (12, 12.50 or 12,50), got %q",
					b.name, market.FormatMoney(minPrice), market.FormatMoney(maxPrice), clip(s)))
			}
			*b.dst = m
		}
	}
	if q.MaxPrice > 0 && q.MinPrice > q.MaxPrice {
		return q, badParameter("min_price", fmt.Sprintf("min_price %s is above max_price %s", market.FormatMoney(q.MinPrice), market.FormatMoney(q.MaxPrice)))
	}
	for _, b := range []struct {
		name string
		dst  *int
	}{{"min_amount", &q.MinAmount}, {"max_amount", &q.MaxAmount}} {
		if s := p.get(b.name); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 || n > catalog.MaxItemStack || s[0] == '+' {
				return q, badParameter(b.name, fmt.Sprintf("%s must be a whole number from 1 to %d, got %q", b.name, catalog.MaxItemStack, clip(s)))
			}
			*b.dst = n
		}
	}
	if q.MaxAmount > 0 && q.MinAmount > q.MaxAmount {
		return q, badParameter("min_amount", fmt.Sprintf("min_amount %d is above max_amount %d", q.MinAmount, q.MaxAmount))
	}
	switch s := p.get("kind"); {
	case s == "":
	case q.Kind != "":
		return q, badParameter("kind", "q already keeps one kind with kind:; give kind or the filter, not both")
	case s == "auction" || s == "fixed":
		q.Kind = s
	default:
		return q, badParameter("kind", fmt.Sprintf("kind must be auction or fixed, got %q", clip(s)))
	}
	if s := p.get("sort"); s != "" {
		m, ok := sortParams[s]
		if !ok {
			return q, badParameter("sort", fmt.Sprintf("sort must be one of %s, got %q", strings.Join(SortValues, ", "), clip(s)))
		}
		q.Sort = m
	}
	if q.Limit, err = p.limit(); err != nil {
		return q, err
	}
	if s := p.get("cursor"); s != "" {
		c, err := decodeListingCursor(s, q)
		if err != nil {
			return q, err
		}
		q.After = &c
	}
	return q, nil
}

// parseUUID accepts only the canonical 36-character form, so that one
// player has one URL. The nil UUID is in that form: it names no player
// nor transaction, and is answered 404 as any unknown one is.
func parseUUID(s string) (uuid.UUID, error) {
	if len(s) != 36 {
		return uuid.Nil, fmt.Errorf("not a canonical UUID")
	}
	u, err := uuid.Parse(s)
	if err != nil {
		return uuid.Nil, fmt.Errorf("not a UUID")
	}
	return u, nil
}

// player reads a player filter (seller, buyer, player): uuid.Nil when it
// is absent. A UUID not in canonical form is 400; one the market does not
// know is 404 player-not-found on every route (the nil UUID here, any other
// when the route reads the market), never an empty page: a filter naming
// nobody is a mistake to say, as a parameter's typo is.
func (p params) player(name string) (uuid.UUID, error) {
	s := p.get(name)
	if s == "" {
		return uuid.Nil, nil
	}
	u, err := parseUUID(s)
	if err != nil {
		return uuid.Nil, badParameter(name, fmt.Sprintf("%s must be a player UUID in canonical form, got %q", name, clip(s)))
	}
	if u == uuid.Nil {
		return uuid.Nil, unknownPlayer(u)
	}
	return u, nil
}

// unknownPlayer is the answer for a player the market does not know.
func unknownPlayer(id uuid.UUID) error {
	return notFound(CodePlayerNotFound, fmt.Sprintf("no player %s", id))
}

// Cursors are opaque to clients: base64url of a small binary record. A
// listing cursor holds the sort, the last listing's key and id, and a hash
// of the filters, so that it is refused with other filters instead of
// silently paging a different result; a history cursor holds a position.
const (
	cursorVersion     = 1
	cursorListings    = 'L'
	cursorTransaction = 'H'
	cursorPlayer      = 'P'
	cursorBids        = 'B'
)

// filterHash identifies a query's filters (everything but the page).
func filterHash(q market.Query) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%q|%d|%s|%q|%d|%d|%d|%d|%d", q.Text, q.Category, q.Seller, q.Material, q.MinPrice, q.MaxPrice, q.MinAmount,
		q.MaxAmount, q.Sort)
	return h.Sum64()
}

func encodeListingCursor(c market.Cursor, q market.Query) string {
	b := []byte{cursorVersion, cursorListings, byte(c.Sort)}
	b = binary.AppendVarint(b, c.Key)
	b = binary.AppendUvarint(b, uint64(c.ID))
	b = binary.BigEndian.AppendUint64(b, filterHash(q))
	return base64.RawURLEncoding.EncodeToString(b)
}

func badCursor(detail string) error {
	return &problemError{status: 400, code: CodeBadCursor, detail: detail, parameter: "cursor"}
}

func cursorBytes(s string, kind byte) ([]byte, error) {
	if len(s) > maxCursorLen {
		return nil, badCursor(fmt.Sprintf("cursor is %d characters; a cursor from this API is at most %d", len(s), maxCursorLen))
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) < 2 || b[0] != cursorVersion {
		return nil, badCursor("cursor is not one this API gave out; pass nextCursor back unchanged")
	}
	if b[1] != kind {
		return nil, badCursor("cursor belongs to another collection")
	}
	return b[2:], nil
}

func decodeListingCursor(s string, q market.Query) (market.Cursor, error) {
	b, err := cursorBytes(s, cursorListings)
	if err != nil {
		return market.Cursor{}, err
	}
	bad := badCursor("cursor is not one this API gave out; pass nextCursor back unchanged")
	if len(b) < 1 {
		return market.Cursor{}, bad
	}
	c := market.Cursor{Sort: market.SortMode(b[0])}
	b = b[1:]
	key, n := binary.Varint(b)
	if n <= 0 {
		return market.Cursor{}, bad
	}
	b = b[n:]
	id, n := binary.Uvarint(b)
	if n <= 0 || id == 0 || id > 1<<31-1 {
		return market.Cursor{}, bad
	}
	b = b[n:]
	if len(b) != 8 {
		return market.Cursor{}, bad
	}
	c.Key, c.ID = key, int(id)
	if binary.BigEndian.Uint64(b) != filterHash(q) || c.Sort != q.Sort {
		return market.Cursor{}, badCursor("cursor was made for other filters or another sort; keep the parameters of the first page")
	}
	return c, nil
}

func encodeHistoryCursor(before int) string {
	b := binary.AppendUvarint([]byte{cursorVersion, cursorTransaction}, uint64(before))
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeHistoryCursor(s string) (int, error) {
	b, err := cursorBytes(s, cursorTransaction)
	if err != nil {
		return 0, err
	}
	pos, n := binary.Uvarint(b)
	if n <= 0 || n != len(b) || pos == 0 || pos > 1<<40 {
		return 0, badCursor("cursor is not one this API gave out; pass nextCursor back unchanged")
	}
	return int(pos), nil
}

// A bids cursor holds the amount (cents) of the last bid a page showed:
// bids only ever rise, so the next page is the bids below it, however many
// came on top meanwhile.
func encodeBidsCursor(below int64) string {
	b := binary.AppendUvarint([]byte{cursorVersion, cursorBids}, uint64(below))
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeBidsCursor(s string) (int64, error) {
	b, err := cursorBytes(s, cursorBids)
	if err != nil {
		return 0, err
	}
	below, n := binary.Uvarint(b)
	if n <= 0 || n != len(b) || below == 0 || below > 1<<50 {
		return 0, badCursor("cursor is not one this API gave out; pass nextCursor back unchanged")
	}
	return int64(below), nil
}

// A player's history cursor holds a position in the player's completed
// transactions, counted from the oldest, and the player, so that it is
// refused for another player.
func encodePlayerCursor(before int, player uuid.UUID) string {
	b := binary.AppendUvarint([]byte{cursorVersion, cursorPlayer}, uint64(before))
	return base64.RawURLEncoding.EncodeToString(append(b, player[:]...))
}

func decodePlayerCursor(s string, player uuid.UUID) (int, error) {
	b, err := cursorBytes(s, cursorPlayer)
	if err != nil {
		return 0, err
	}
	pos, n := binary.Uvarint(b)
	if n <= 0 || len(b)-n != len(player) || pos == 0 || pos > 1<<40 {
		return 0, badCursor("cursor is not one this API gave out; pass nextCursor back unchanged")
	}
	if !bytes.Equal(b[n:], player[:]) {
		return 0, badCursor("cursor was made for another player; keep the parameters of the first page")
	}
	return int(pos), nil
}

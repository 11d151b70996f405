package httpapi

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"time"

	"github.com/rynek/rynek/internal/wire"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
)

// The buy orders' routes: the open orders, best first and paged by cursor
// like the listings; one order, open or closed; a material's order book.

// orders answers GET /api/orders: the open buy orders, of a material or a
// buyer, the highest unit price first, then the oldest.
func (s *Server) orders(r *http.Request) (reader, error) {
	p, err := parseParams(r.URL.RawQuery, "material", "buyer", "limit", "cursor")
	if err != nil {
		return nil, err
	}
	var q market.OrderQuery
	if raw := p.get("material"); raw != "" {
		info, ok := catalog.LookupMaterial(raw)
		if !ok {
			return nil, badParameter("material", fmt.Sprintf("unknown material %q", clip(raw)))
		}
		q.Material = info.Key
	}
	if q.Buyer, err = p.player("buyer"); err != nil {
		return nil, err
	}
	if q.Limit, err = p.limit(); err != nil {
		return nil, err
	}
	if c := p.get("cursor"); c != "" {
		if q.After, err = decodeOrderCursor(c, q); err != nil {
			return nil, err
		}
	}
	return func() (any, uint64, error) {
		v := s.svc.Version()
		page, err := s.svc.Orders(q)
		if errors.Is(err, market.ErrUnknownPlayer) {
			return nil, 0, unknownPlayer(q.Buyer)
		}
		if err != nil {
			return nil, 0, err
		}
		out := wire.OrderPage{Items: make([]wire.Order, len(page.Orders)), Total: page.Total, Version: v}
		for i, o := range page.Orders {
			out.Items[i] = wire.NewOrder(o)
		}
		if page.Next != nil {
			out.NextCursor = encodeOrderCursor(*page.Next, q)
		}
		return out, v, nil
	}, nil
}

// order answers GET /api/orders/{id}: an order, open or closed.
func (s *Server) order(r *http.Request) (reader, error) {
	id, err := parseWholeID("an order", r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	if _, err := parseParams(r.URL.RawQuery); err != nil {
		return nil, err
	}
	return func() (any, uint64, error) {
		v := s.svc.Version()
		o, err := s.svc.GetOrder(id)
		var me *market.Error
		if errors.As(err, &me) && me.Code == market.CodeUnknownOrder {
			return nil, 0, notFound(CodeOrderNotFound, fmt.Sprintf("no buy order %d", id))
		}
		if err != nil {
			return nil, 0, err
		}
		return wire.NewOrder(o), v, nil
	}, nil
}

// orderBook answers GET /api/order-book/{material}: the depth of its buy
// orders and of the listings they may buy.
func (s *Server) orderBook(r *http.Request) (reader, error) {
	item := r.PathValue("material")
	if _, err := parseParams(r.URL.RawQuery); err != nil {
		return nil, err
	}
	info, ok := catalog.LookupMaterial(item)
	if !ok {
		return nil, notFound(CodeItemNotFound, fmt.Sprintf("no item %q in the market's catalogue", clip(item)))
	}
	return func() (any, uint64, error) {
		v := s.svc.Version()
		book, err := s.svc.GetOrderBook(info.Key, 0)
		if err != nil {
			return nil, 0, err
		}
		return wire.NewOrderBook(book, v), v, nil
	}, nil
}

// cursorOrders marks an orders cursor.
const cursorOrders = 'O'

// orderFilterHash identifies an orders query's filters.
func orderFilterHash(q market.OrderQuery) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "orders|%q|%s", q.Material, q.Buyer)
	return h.Sum64()
}

// An orders cursor holds the last order's place in the book (its unit
// price in cents, when it was placed, its id) and the filters' hash: the
// next page starts behind that place even when the order has gone since.
func encodeOrderCursor(p market.OrderPlace, q market.OrderQuery) string {
	b := []byte{cursorVersion, cursorOrders}
	b = binary.AppendUvarint(b, uint64(math.Round(p.UnitPrice*100)))
	b = binary.AppendVarint(b, p.CreatedAt.UnixMilli())
	b = binary.AppendUvarint(b, uint64(p.ID))
	b = binary.BigEndian.AppendUint64(b, orderFilterHash(q))
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeOrderCursor(s string, q market.OrderQuery) (*market.OrderPlace, error) {
	b, err := cursorBytes(s, cursorOrders)
	if err != nil {
		return nil, err
	}
	bad := badCursor("cursor is not one this API gave out; pass nextCursor back unchanged")
	cents, n := binary.Uvarint(b)
	if n <= 0 || cents == 0 || cents > 1<<50 {
		return nil, bad
	}
	b = b[n:]
	created, n := binary.Varint(b)
	if n <= 0 {
		return nil, bad
	}
	b = b[n:]
	id, n := binary.Uvarint(b)
	if n <= 0 || id == 0 || id > 1<<31-1 {
		return nil, bad
	}
	b = b[n:]
	if len(b) != 8 {
		return nil, bad
	}
	if binary.BigEndian.Uint64(b) != orderFilterHash(q) {
		return nil, badCursor("cursor was made for other filters; keep the parameters of the first page")
	}
	return &market.OrderPlace{UnitPrice: float64(cents) / 100, CreatedAt: time.UnixMilli(created).UTC(), ID: int(id)}, nil
}

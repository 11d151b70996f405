package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/internal/wire"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/catalog"
)

// reader reads a route's answer from the service: the body and the market
// version it reflects.
type reader func() (body any, version uint64, err error)

// route parses and checks a request, returning how to read its answer.
// Parsing comes first, so that a bad request is a 400 even when a
// conditional request would otherwise be answered with 304.
type route func(r *http.Request) (reader, error)

// keeping says whether a route's answers may be kept for reuse.
type keeping bool

const (
	// kept: the answer depends only on the market's version and the
	// listings' expiries (see answers.go).
	kept keeping = true
	// readEachTime: the answer also depends on the clock (a span of time
	// ending now), so it is read for every request.
	readEachTime keeping = false
)

// read serves a JSON route: bad requests are refused before the market is
// touched; a request whose If-None-Match names the current version is 304
// without reading anything; otherwise the answer carries an ETag made of
// the version it was read at.
func (s *Server) read(rt route, keep keeping) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		http.NewResponseController(w).SetWriteDeadline(time.Now().Add(s.opts.WriteTimeout))
		read, err := rt(r)
		if err != nil {
			writeError(w, r, err)
			return
		}
		h := w.Header()
		h.Set("Cache-Control", "no-cache")
		// A service that is not ready answers the read itself: 503.
		if inm := r.Header.Get("If-None-Match"); inm != "" && s.svc.IsReady() {
			if tag := etag(s.svc.Version()); etagMatch(inm, tag) {
				h.Set("ETag", tag)
				w.WriteHeader(http.StatusNotModified)
				return
			}
		}
		body, version, err := s.answer(r, read, keep)
		if err != nil {
			writeError(w, r, err)
			return
		}
		h.Set("ETag", etag(version))
		writeEncoded(w, r, http.StatusOK, body)
	}
}

// afterHistory is rt for an answer read from the history of purchases,
// which loads in the background after the market is ready: the request
// waits for the load before it takes a working slot (answer), so that
// while the history loads the reads that do not need it, one slot short of
// the cores, are not held behind one that does.
func (s *Server) afterHistory(rt route) route {
	return func(r *http.Request) (reader, error) {
		if !s.svc.HistoryLoaded() {
			loaded := make(chan struct{})
			go func() {
				s.svc.WaitHistory() // not ready: the read below says so
				close(loaded)
			}()
			select {
			case <-loaded:
			case <-r.Context().Done():
				return nil, r.Context().Err()
			}
		}
		return rt(r)
	}
}

// answer reads and encodes r's answer. It takes one of the API's working
// slots, one core fewer than the process has, so that the main thread
// always finds a core free however many requests arrive; writing the answer
// out takes none, so a client slow to read holds up no other.
func (s *Server) answer(r *http.Request, read reader, keep keeping) ([]byte, uint64, error) {
	s.working <- struct{}{}
	defer func() { <-s.working }()
	if keep {
		return s.keptAnswer(r.URL.Path+"?"+r.URL.RawQuery, read)
	}
	return encodeAnswer(read)
}

// keptAnswer is target's answer at the market's version: the kept one, or
// one read now (once, however many requests ask at the same time) and kept.
func (s *Server) keptAnswer(target string, read reader) ([]byte, uint64, error) {
	if !s.svc.IsReady() {
		return encodeAnswer(read) // the not-ready error, read as such
	}
	version, until := s.svc.Horizon()
	a, reading := s.answers.claim(target, version, until, s.svc.Now())
	if !reading {
		<-a.ready
		if a.body != nil {
			return a.body, a.version, nil
		}
		return encodeAnswer(read) // the shared read failed: try alone
	}
	body, v, err := encodeAnswer(read)
	if err != nil || v != version {
		// Failed, or the market moved between the horizon and the read:
		// the answer is right for this request but is not kept.
		s.answers.drop(target, a)
		return body, v, err
	}
	s.answers.fill(a, body)
	return body, v, nil
}

// encodeAnswer reads an answer and encodes it as the response body.
func encodeAnswer(read reader) ([]byte, uint64, error) {
	body, version, err := read()
	if err != nil {
		return nil, 0, err
	}
	b, err := encodeJSON(body)
	return b, version, err
}

// etag is the entity tag of an answer read at version v. It is weak: an
// answer may also change without a new version when a listing's expiry
// passes before the timer removes it.
func etag(v uint64) string { return `W/"` + strconv.FormatUint(v, 10) + `"` }

// etagMatch is If-None-Match's weak comparison against tag.
func etagMatch(header, tag string) bool {
	if strings.TrimSpace(header) == "*" {
		return true
	}
	want := strings.TrimPrefix(tag, "W/")
	for _, t := range strings.Split(header, ",") {
		if strings.TrimPrefix(strings.TrimSpace(t), "W/") == want {
			return true
		}
	}
	return false
}

func writeJSON(w http.ResponseWriter, r *http.Request, status int, body any) {
	b, err := encodeJSON(body)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeEncoded(w, r, status, b)
}

// encodeJSON is body as a response carries it: JSON and a newline.
func encodeJSON(body any) ([]byte, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// writeEncoded sends an encoded JSON body (only its length for HEAD),
// gzipped when the client takes it and it is worth it (compress.go).
func writeEncoded(w http.ResponseWriter, r *http.Request, status int, b []byte) {
	b = encoding(w, r, b, nil)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(b)
	}
}

func (s *Server) listings(r *http.Request) (reader, error) {
	cfg := s.svc.Config()
	q, err := parseListingQuery(r.URL.RawQuery, cfg.MinPrice, cfg.MaxPrice)
	if err != nil {
		return nil, err
	}
	return func() (any, uint64, error) {
		page, err := s.svc.Query(q)
		if errors.Is(err, market.ErrUnknownPlayer) {
			return nil, 0, unknownPlayer(q.Seller)
		}
		if err != nil {
			return nil, 0, err
		}
		out := wire.ListingPage{Items: make([]wire.Listing, len(page.Listings)), Total: page.Total, Version: page.Version}
		for i, l := range page.Listings {
			out.Items[i] = wire.NewListing(l)
		}
		if page.Next != nil {
			out.NextCursor = encodeListingCursor(*page.Next, q)
		}
		return out, page.Version, nil
	}, nil
}

// parseID reads a listing id.
func parseID(s string) (int, error) { return parseWholeID("a listing", s) }

// parseWholeID reads the id of what (a listing, an order): a decimal
// 1..2³¹-1 without sign or leading zeros, so that each has one URL.
func parseWholeID(what, s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 1<<31-1 || strconv.Itoa(n) != s {
		return 0, badParameter("id", fmt.Sprintf("%s id is a whole number from 1 to %d, got %q", what, 1<<31-1, clip(s)))
	}
	return n, nil
}

func (s *Server) listing(r *http.Request) (reader, error) {
	id, err := parseID(r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	if _, err := parseParams(r.URL.RawQuery); err != nil {
		return nil, err
	}
	return func() (any, uint64, error) {
		v := s.svc.Version()
		l, err := s.svc.GetListing(id)
		if errors.Is(err, market.ErrUnknownListing) || errors.Is(err, market.ErrListingExpired) {
			return nil, 0, s.listingGone(r, id)
		}
		if err != nil {
			return nil, 0, err
		}
		return wire.NewListing(l), v, nil
	}, nil
}

// bids answers an auction's bids, newest first, paged by the amount of the
// last bid shown.
func (s *Server) bids(r *http.Request) (reader, error) {
	id, err := parseID(r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	p, err := parseParams(r.URL.RawQuery, "limit", "cursor")
	if err != nil {
		return nil, err
	}
	limit, err := p.limit()
	if err != nil {
		return nil, err
	}
	var below int64
	if c := p.get("cursor"); c != "" {
		if below, err = decodeBidsCursor(c); err != nil {
			return nil, err
		}
	}
	return func() (any, uint64, error) {
		v := s.svc.Version()
		l, err := s.svc.GetListing(id)
		if errors.Is(err, market.ErrUnknownListing) {
			return nil, 0, notFound(CodeListingNotFound, fmt.Sprintf("listing %d is not on the market", id))
		}
		if err != nil && !errors.Is(err, market.ErrListingExpired) {
			return nil, 0, err
		}
		bids, err := s.svc.AuctionBids(id)
		var me *market.Error
		if errors.As(err, &me) && me.Code == market.CodeNotAnAuction {
			return nil, 0, notFound(CodeNotAnAuction, fmt.Sprintf("listing %d is sold at a fixed price and has no bids", id))
		}
		if err != nil {
			return nil, 0, err
		}
		page := wire.BidPage{Items: []wire.Bid{}, Version: v}
		if l.Auction != nil {
			page.Total = l.Auction.Bids
		}
		var last int64 // the cents of the last bid on the page
		for _, b := range bids {
			cents := int64(math.Round(b.Amount * 100))
			if below > 0 && cents >= below {
				continue
			}
			if len(page.Items) == limit {
				page.NextCursor = encodeBidsCursor(last)
				break
			}
			page.Items = append(page.Items, wire.NewBid(b))
			last = cents
		}
		return page, v, nil
	}, nil
}

func (s *Server) categories(r *http.Request) (reader, error) {
	if _, err := parseParams(r.URL.RawQuery); err != nil {
		return nil, err
	}
	return func() (any, uint64, error) {
		counts, v, err := s.svc.CategoryCounts()
		if err != nil {
			return nil, 0, err
		}
		return wire.NewCategoryList(counts, v), v, nil
	}, nil
}

func (s *Server) player(r *http.Request) (reader, error) {
	raw := r.PathValue("uuid")
	id, err := parseUUID(raw)
	if err != nil {
		return nil, badParameter("uuid", fmt.Sprintf("a player is named by a UUID in canonical form (8-4-4-4-12 hex digits), got %q", clip(raw)))
	}
	if _, err := parseParams(r.URL.RawQuery); err != nil {
		return nil, err
	}
	return func() (any, uint64, error) {
		p, err := s.svc.Profile(id)
		if errors.Is(err, market.ErrUnknownPlayer) {
			return nil, 0, unknownPlayer(id)
		}
		if err != nil {
			return nil, 0, err
		}
		return wire.NewProfile(p), p.Version, nil
	}, nil
}

// statsTop is how many rows each of the stats' top lists has.
const statsTop = 10

func (s *Server) stats(r *http.Request) (reader, error) {
	if _, err := parseParams(r.URL.RawQuery); err != nil {
		return nil, err
	}
	return func() (any, uint64, error) {
		v := s.svc.Version()
		st, err := s.svc.Stats(statsTop)
		if err != nil {
			return nil, 0, err
		}
		return wire.NewStats(st, v), v, nil
	}, nil
}

func (s *Server) history(r *http.Request) (reader, error) {
	p, err := parseParams(r.URL.RawQuery, "limit", "cursor", "player")
	if err != nil {
		return nil, err
	}
	q := market.TxQuery{}
	if q.Limit, err = p.limit(); err != nil {
		return nil, err
	}
	if q.Player, err = p.player("player"); err != nil {
		return nil, err
	}
	if q.Player != uuid.Nil {
		before := 0
		if c := p.get("cursor"); c != "" {
			if before, err = decodePlayerCursor(c, q.Player); err != nil {
				return nil, err
			}
		}
		return func() (any, uint64, error) { return s.playerHistory(q, before) }, nil
	}
	if c := p.get("cursor"); c != "" {
		if q.Before, err = decodeHistoryCursor(c); err != nil {
			return nil, err
		}
	}
	return func() (any, uint64, error) {
		page, err := s.svc.Transactions(q)
		var me *market.Error
		if errors.As(err, &me) && me.Code == market.CodeInvalidQuery && q.Before > 0 {
			return nil, 0, badCursor("cursor is not one this API gave out; pass nextCursor back unchanged")
		}
		if err != nil {
			return nil, 0, err
		}
		out := transactionPage(page)
		if page.Next > 0 {
			out.NextCursor = encodeHistoryCursor(page.Next)
		}
		return out, page.Version, nil
	}, nil
}

func transactionPage(page market.TxPage) wire.TransactionPage {
	out := wire.TransactionPage{Items: make([]wire.Transaction, len(page.Transactions)), Total: page.Total, Version: page.Version}
	for i, t := range page.Transactions {
		out.Items[i] = wire.NewTransaction(t)
	}
	return out
}

// playerHistory is a page of one player's completed purchases and sales,
// newest first, below position before (counted from the player's oldest;
// 0: from the newest). The service pages a player's history by offset from
// the newest, which a completion moves; positions from the oldest stay, so
// the cursor holds one and the offset is worked out from the total the page
// is read with, read again if a completion came in between.
func (s *Server) playerHistory(q market.TxQuery, before int) (any, uint64, error) {
	total := -1
	for range 4 {
		if before > 0 && total >= 0 {
			q.Offset = total - before
		}
		page, err := s.svc.Transactions(q)
		if errors.Is(err, market.ErrUnknownPlayer) {
			return nil, 0, unknownPlayer(q.Player)
		}
		if err != nil {
			return nil, 0, err
		}
		if before > page.Total {
			return nil, 0, badCursor("cursor is not one this API gave out; pass nextCursor back unchanged")
		}
		if before > 0 && page.Total != total {
			total = page.Total // the first read, or a completion came in: read at the right offset
			continue
		}
		out := transactionPage(page)
		if last := page.Total - q.Offset - len(page.Transactions); last > 0 && len(page.Transactions) > 0 {
			out.NextCursor = encodePlayerCursor(last, q.Player)
		}
		return out, page.Version, nil
	}
	return nil, 0, &problemError{status: http.StatusServiceUnavailable, code: CodeNotReady,
		detail: "the player's history changed under four reads in a row; try again"}
}

func (s *Server) transaction(r *http.Request) (reader, error) {
	raw := r.PathValue("id")
	id, err := parseUUID(raw)
	if err != nil {
		return nil, badParameter("id", fmt.Sprintf("a transaction id is a UUID in canonical form, got %q", clip(raw)))
	}
	if _, err := parseParams(r.URL.RawQuery); err != nil {
		return nil, err
	}
	return func() (any, uint64, error) {
		v := s.svc.Version()
		t, err := s.svc.GetTransaction(id.String())
		if errors.Is(err, market.ErrUnknownTransaction) {
			return nil, 0, notFound(CodeTransactionMissing, fmt.Sprintf("no transaction %s", id))
		}
		if err != nil {
			return nil, 0, err
		}
		return wire.NewTransaction(t), v, nil
	}, nil
}

// spans are price-history's spans and their bucket widths: hours for a
// day, quarter days for a week, days for a month.
var spans = map[string]struct {
	span, width time.Duration
}{
	"24h": {24 * time.Hour, time.Hour},
	"7d":  {7 * 24 * time.Hour, 6 * time.Hour},
	"30d": {30 * 24 * time.Hour, 24 * time.Hour},
}

func (s *Server) priceSummary(r *http.Request) (reader, error) {
	item := r.PathValue("item")
	if _, err := parseParams(r.URL.RawQuery); err != nil {
		return nil, err
	}
	info, ok := catalog.LookupMaterial(item)
	if !ok {
		return nil, notFound(CodeItemNotFound, fmt.Sprintf("no item %q in the market's catalogue", clip(item)))
	}
	return func() (any, uint64, error) {
		v := s.svc.Version()
		sum, err := s.svc.PriceSummary(info.Key)
		if err != nil {
			return nil, 0, err
		}
		return wire.NewPriceSummary(sum, v), v, nil
	}, nil
}

func (s *Server) priceHistory(r *http.Request) (reader, error) {
	item := r.PathValue("item")
	p, err := parseParams(r.URL.RawQuery, "span")
	if err != nil {
		return nil, err
	}
	span := p.get("span")
	if span == "" {
		span = "7d"
	}
	sp, ok := spans[span]
	if !ok {
		return nil, badParameter("span", fmt.Sprintf("span must be 24h, 7d or 30d, got %q", clip(span)))
	}
	info, ok := catalog.LookupMaterial(item)
	if !ok {
		return nil, notFound(CodeItemNotFound, fmt.Sprintf("no item %q in the market's catalogue", clip(item)))
	}
	return func() (any, uint64, error) {
		v := s.svc.Version()
		ph, err := s.svc.PriceHistory(info.Key, sp.span, sp.width)
		if err != nil {
			return nil, 0, err
		}
		return wire.NewPriceHistory(ph, span, v), v, nil
	}, nil
}

// Health is the body of GET /api/health. It carries two versions that
// answer different questions: Release is which program answers (Rynek's
// release, changed by an upgrade); Version is how far the market has come
// (its event log's newest seq, as every collection carries it, changed by
// every sale or listing).
type Health struct {
	// Ready is set when the market serves reads and saves changes: false
	// while its store fails (Store says why).
	Ready         bool        `json:"ready"`
	Name          string      `json:"name"`
	Release       string      `json:"release"`  // Rynek's release, "0.2.0"
	Contract      int         `json:"contract"` // the read contract's number (the original's WEB_API_CONTRACT)
	Version       uint64      `json:"version"`  // the market's version: its event log's newest seq
	HistoryLoaded bool        `json:"historyLoaded"`
	Streams       int         `json:"streams"` // open event streams
	Store         StoreHealth `json:"store"`
	TickWork      TickWork    `json:"tickWork"`
}

// TickWork is the main thread's work per tick over the last minute
// (market.TickWork), in microseconds: what the market costs the game
// server's tick.
type TickWork struct {
	Ticks   int     `json:"ticks"`   // ticks measured; 0 before the main loop's first
	Seconds float64 `json:"seconds"` // the span they cover, up to 60
	// Wall is the ticks' wall time, CPU the main thread's CPU time in
	// them (absent where the system has no thread's CPU clock): a wall
	// time far above the CPU time is a tick that waited (for the disk, the
	// network or a core another process held).
	Wall TickFigures  `json:"wallMicroseconds"`
	CPU  *TickFigures `json:"cpuMicroseconds,omitempty"`
	// PutOff counts the ticks that put their changes off to the next:
	// the market's lock was not free within a millisecond (a reader the
	// system stopped while it held it).
	PutOff int `json:"putOff"`
}

// TickFigures are a span's median, 99th percentile and longest tick.
type TickFigures struct {
	P50 int64 `json:"p50"`
	P99 int64 `json:"p99"`
	Max int64 `json:"max"`
}

// newTickWork is w in microseconds.
func newTickWork(w market.TickWork) TickWork {
	micros := func(f market.TickFigures) TickFigures {
		return TickFigures{P50: f.P50.Microseconds(), P99: f.P99.Microseconds(), Max: f.Max.Microseconds()}
	}
	out := TickWork{Ticks: w.Ticks, Seconds: math.Round(w.Span.Seconds()*1000) / 1000, Wall: micros(w.Wall), PutOff: w.PutOff}
	if w.HasCPU {
		cpu := micros(w.CPU)
		out.CPU = &cpu
	}
	return out
}

// StoreHealth is whether the market's store saves its changes.
type StoreHealth struct {
	OK bool `json:"ok"`
	// Reachable is false while the store cannot reach its database (the
	// link to PostgreSQL cut, its server away): every change is refused at
	// once until it answers again, which the market finds out by itself.
	Reachable bool `json:"reachable"`
	// Outage is the time the store cannot reach its database now, or the
	// last time once it is back; nil when it never lost it.
	Outage *StoreOutage `json:"outage,omitempty"`
	// Interrupted is set while purchases a failure may have cut short
	// wait to be finished, which happens once the store takes writes.
	Interrupted bool `json:"interrupted,omitempty"`
	// Failure is the current run of failures, or the last one once it is
	// over; nil when the store never failed since the start.
	Failure *StoreFailure `json:"failure,omitempty"`
}

// StoreFailure is a run of writes the store refused, from the first until
// the store has taken writes for market.StoreSettle.
type StoreFailure struct {
	Error     string    `json:"error"`               // the store's error at the first failure
	LastError string    `json:"lastError,omitempty"` // at the newest, when it differs
	Failures  int       `json:"failures"`
	Since     wire.Time `json:"since"`
	Last      wire.Time `json:"last"`
	Over      wire.Time `json:"over,omitzero"` // the first write taken after its last failure
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	if _, err := parseParams(r.URL.RawQuery); err != nil {
		writeError(w, r, err)
		return
	}
	// The cheapest read: it fails with the service's not-ready error.
	if _, err := s.svc.GetActiveListingsCount(); err != nil {
		writeError(w, r, err)
		return
	}
	store := newStoreHealth(s.svc.StoreHealth())
	status := http.StatusOK
	if !store.OK {
		// Not ready to take changes: a monitor sees it in the status.
		status = http.StatusServiceUnavailable
		w.Header().Set("Retry-After", "10")
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, r, status, Health{Ready: store.OK, Name: s.svc.Name(), Release: s.svc.ReleaseVersion(), Contract: s.svc.WebAPIContract(), Version: s.svc.Version(),
		HistoryLoaded: s.svc.HistoryLoaded(), Streams: s.hub.streams(), Store: store,
		TickWork: newTickWork(s.svc.TickWork())})
}

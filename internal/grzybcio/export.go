package grzybcio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"go.yaml.in/yaml/v3"
)

// ExportSummary counts what an export wrote.
type ExportSummary struct {
	Dir                          string
	Listings, Mail, Transactions int
	// Favorites, Alerts and Ratings are the players' own: favourites of
	// listings on the market, price alerts, and buyers' ratings of sales.
	Favorites, Alerts, Ratings int
	// LeftOut counts the auctions the export left out (ExportOptions).
	LeftOut int
	// OrdersLeftOut are the open buy orders the export left out
	// (ExportOptions), by buyer, with the money they hold.
	OrdersLeftOut []HeldByOrders
}

// HeldByOrders is one buyer's open buy orders, which an export leaves in
// the market: how many, and the money their escrow holds, which is the
// buyer's (cancelling an order gives it back to their balance).
type HeldByOrders struct {
	Buyer     uuid.UUID
	BuyerName string
	Orders    int
	Escrow    market.Money
}

// ExportOptions say what an export may leave behind.
type ExportOptions struct {
	// WithoutAuctions leaves the market's auctions out: the plugin sells at
	// fixed prices only. Without it, a market with auctions is refused.
	WithoutAuctions bool
	// WithoutOrders leaves the market's open buy orders out: the plugin
	// has none. Without it, a market with an open order is refused.
	WithoutOrders bool
}

// WriteSummary says what the export wrote, and what the plugin makes of it.
func (s ExportSummary) WriteSummary(w io.Writer) {
	fmt.Fprintf(w, "exported %s, %s and %s to %s and %s\n",
		count(s.Listings, "listing"), count(s.Mail, "mailbox entry"), count(s.Transactions, "transaction"), filepath.Join(s.Dir, ListingsFile), filepath.Join(s.Dir, MarketDataFile))
	fmt.Fprintf(w, "  with the players' %s, %s and %s\n", count(s.Favorites, "favourite"), count(s.Alerts, "price alert"), count(s.Ratings, "rating"))
	if s.LeftOut > 0 {
		fmt.Fprintf(w, "  left out %s, which the plugin cannot hold: they stay in this market with their bids\n", count(s.LeftOut, "auction"))
	}
	if len(s.OrdersLeftOut) > 0 {
		orders, escrow := heldInAll(s.OrdersLeftOut)
		fmt.Fprintf(w, "  left out %s, which the plugin cannot hold: they stay in this market with the %s their escrow holds, the buyers' money\n",
			count(orders, "open buy order"), market.FormatMoney(escrow))
		fmt.Fprintln(w, "  (cancelling an order in Rynek gives its escrow back to its buyer's balance); held for each buyer:")
		for _, h := range s.OrdersLeftOut {
			fmt.Fprintf(w, "    %s %s: %s in %s\n", h.Buyer, h.BuyerName, market.FormatMoney(h.Escrow), count(h.Orders, "order"))
		}
	}
	fmt.Fprintln(w, "the plugin computes each listing's expiry from its own listing-expiry-days")
}

// count is n and the noun, plural unless n is 1: an "entry" makes
// "entries", a "day" "days".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if stem, ok := strings.CutSuffix(noun, "y"); ok && stem != "" && !strings.ContainsAny(stem[len(stem)-1:], "aeiou") {
		return strconv.Itoa(n) + " " + stem + "ies"
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// Export writes the plugin's listings.yml and market-data.yml into dir from
// the market in store, so that a server can go back to the plugin. Items
// come from their kept originals, with the amount they have now; items made
// in Rynek are written in the current shape. Existing files are never
// overwritten, and the files appear whole or not at all (each is written to
// a temporary file first). A market with a purchase in flight is refused:
// the plugin could not finish it, and Rynek settles it the next time the
// market opens.
func Export(store market.Reader, dir string, opts ExportOptions) (ExportSummary, error) {
	var sum ExportSummary
	c, err := market.ReadStore(store)
	if err != nil {
		return sum, err
	}
	leftOut := leaveOutAuctions(c)
	if leftOut > 0 && !opts.WithoutAuctions {
		return sum, fmt.Errorf("the market has %s, which the plugin cannot hold (it sells at fixed prices only); --without-auctions leaves them out: they stay in this market with their bids", count(leftOut, "auction"))
	}
	held := openOrders(c)
	if orders, escrow := heldInAll(held); orders > 0 && !opts.WithoutOrders {
		return sum, fmt.Errorf("the market has %s, which the plugin cannot hold (it has no buy orders); --without-orders leaves them out: they stay in this market with the %s their escrow holds", count(orders, "open buy order"), market.FormatMoney(escrow))
	}
	for _, t := range c.Transactions {
		if !t.State.Terminal() {
			return sum, fmt.Errorf("transaction %s is in flight (%s): open the market with rynek once, which settles it, then export", t.ID, t.State)
		}
	}
	paths := []string{filepath.Join(dir, ListingsFile), filepath.Join(dir, MarketDataFile)}
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			return sum, fmt.Errorf("%s exists: an export never overwrites the plugin's files; move it away or export into another folder", p)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return sum, err
		}
	}
	listings, err := listingsDocument(c)
	if err != nil {
		return sum, err
	}
	written := ExportSummary{Dir: dir, Listings: len(c.Listings), Mail: len(c.Mail), Transactions: len(c.Transactions), LeftOut: leftOut,
		OrdersLeftOut: held}
	data, err := marketDataDocument(c, &written)
	if err != nil {
		return sum, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return sum, err
	}
	if err := writeFiles(paths, [][]byte{listings, data}); err != nil {
		return sum, err
	}
	return written, nil
}

// leaveOutAuctions takes the auctions out of c, and the players'
// favourites of them, and says how many it took.
func leaveOutAuctions(c *market.StoreContents) int {
	gone := map[int]bool{}
	c.Listings = slices.DeleteFunc(c.Listings, func(l market.Listing) bool {
		gone[l.ID] = l.Auction != nil
		return l.Auction != nil
	})
	n := 0
	for _, g := range gone {
		if g {
			n++
		}
	}
	if n == 0 {
		return 0
	}
	for id, d := range c.PlayerData {
		d.Favorites = slices.DeleteFunc(d.Favorites, func(l int) bool { return gone[l] })
		c.PlayerData[id] = d
	}
	return n
}

// openOrders is what the open buy orders of c hold, by buyer, in the
// order of the buyers' ids. The plugin has no buy orders, so none is
// written; a closed order holds nothing, and its purchases are among the
// transactions the export writes.
func openOrders(c *market.StoreContents) []HeldByOrders {
	by := map[uuid.UUID]*HeldByOrders{}
	var out []HeldByOrders
	for _, o := range c.Orders {
		if !o.Open() {
			continue
		}
		h := by[o.Buyer]
		if h == nil {
			h = &HeldByOrders{Buyer: o.Buyer, BuyerName: o.BuyerName}
			by[o.Buyer] = h
		}
		h.Orders++
		escrow, _ := market.RoundToCents(o.Escrow) // a market's own amount: whole cents
		h.Escrow += escrow
	}
	for _, h := range by {
		out = append(out, *h)
	}
	slices.SortFunc(out, func(a, b HeldByOrders) int { return strings.Compare(a.Buyer.String(), b.Buyer.String()) })
	return out
}

// heldInAll is how many orders held and the money they hold.
func heldInAll(held []HeldByOrders) (orders int, escrow market.Money) {
	for _, h := range held {
		orders += h.Orders
		escrow += h.Escrow
	}
	return orders, escrow
}

// writeFiles writes each file to a temporary one, then renames them all:
// after a failure no file of the export is left.
func writeFiles(paths []string, contents [][]byte) error {
	var temps []string
	clean := func() {
		for _, t := range temps {
			os.Remove(t)
		}
	}
	for i, p := range paths {
		f, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".*")
		if err != nil {
			clean()
			return err
		}
		temps = append(temps, f.Name())
		_, err = f.Write(contents[i])
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			clean()
			return fmt.Errorf("write %s: %w", p, err)
		}
	}
	for i, p := range paths {
		if err := os.Rename(temps[i], p); err != nil {
			for _, done := range paths[:i] {
				os.Remove(done)
			}
			clean()
			return err
		}
	}
	return nil
}

func encode(root *yaml.Node) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// price is an amount as the plugin wrote its doubles: always with a decimal
// point, so that it reads back as a number with cents.
func price(f float64) *yaml.Node {
	m, _ := market.RoundToCents(f)
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: market.FormatMoney(m)}
}

func listingsDocument(c *market.StoreContents) ([]byte, error) {
	list := sequence()
	for _, l := range c.Listings {
		item, err := itemNode(l.Item)
		if err != nil {
			return nil, err
		}
		e := mapping()
		add(e, "==", str(listingTag))
		add(e, "id", integerNode(int64(l.ID)))
		add(e, "seller", str(l.Seller.String()))
		add(e, "sellerName", str(l.SellerName))
		add(e, "item", item)
		add(e, "price", price(l.Price))
		add(e, "timestamp", integerNode(l.CreatedAt.UnixMilli()))
		list.Content = append(list.Content, e)
	}
	root := mapping()
	add(root, "listings", list)
	add(root, "next-id", integerNode(int64(c.NextListingID)))
	return encode(root)
}

// marketDataDocument is market-data.yml; it counts the players' own data
// it writes into sum.
func marketDataDocument(c *market.StoreContents, sum *ExportSummary) ([]byte, error) {
	root := mapping()
	favorites := mapping()
	for _, p := range c.Players {
		d := c.PlayerData[p.ID]
		if len(d.Favorites) == 0 {
			continue
		}
		ids := sequence()
		for _, id := range d.Favorites {
			ids.Content = append(ids.Content, integerNode(int64(id)))
		}
		sum.Favorites += len(d.Favorites)
		add(favorites, p.ID.String(), ids)
	}
	add(root, "favorites", favorites)
	mailbox := mapping()
	var owner uuid.UUID
	var entries *yaml.Node
	for _, m := range c.Mail {
		if entries == nil || m.Owner != owner {
			owner, entries = m.Owner, sequence()
			add(mailbox, owner.String(), entries)
		}
		item, err := itemNode(m.Item)
		if err != nil {
			return nil, err
		}
		e := mapping()
		add(e, "id", str(m.ID.String()))
		add(e, "item", item)
		add(e, "reason", str(m.Reason))
		add(e, "timestamp", integerNode(m.CreatedAt.UnixMilli()))
		if m.PreviousPrice > 0 {
			add(e, "previousPrice", price(m.PreviousPrice))
		}
		entries.Content = append(entries.Content, e)
	}
	add(root, "mailbox", mailbox)
	alerts := mapping()
	for _, p := range c.Players {
		d := c.PlayerData[p.ID]
		if len(d.Alerts) == 0 {
			continue
		}
		entries := sequence()
		for _, a := range d.Alerts {
			e := mapping()
			add(e, "id", str(a.ID.String()))
			add(e, "owner", str(p.ID.String()))
			add(e, "query", str(a.Query))
			add(e, "maxPrice", price(a.MaxUnitPrice))
			add(e, "createdAt", integerNode(a.Created.UnixMilli()))
			entries.Content = append(entries.Content, e)
		}
		sum.Alerts += len(d.Alerts)
		add(alerts, p.ID.String(), entries)
	}
	add(root, "alerts", alerts)
	ratings := sequence()
	for _, t := range c.Transactions {
		if t.Rating == 0 {
			continue
		}
		e := mapping()
		add(e, "transactionId", str(t.ID))
		add(e, "seller", str(t.Seller.String()))
		add(e, "buyer", str(t.Buyer.String()))
		add(e, "stars", integerNode(int64(t.Rating)))
		// Rynek keeps no time of the rating itself: the sale's is the
		// closest it knows.
		add(e, "timestamp", integerNode(t.Timeline[len(t.Timeline)-1].At.UnixMilli()))
		ratings.Content = append(ratings.Content, e)
		sum.Ratings++
	}
	add(root, "ratings", ratings)
	txs := sequence()
	for _, t := range c.Transactions {
		item, err := itemNode(t.Item)
		if err != nil {
			return nil, err
		}
		state, code := string(t.State), t.ErrorCode
		if rest, ok := strings.CutPrefix(code, unfinishedPrefix); ok { // the plugin's own state, given back
			state, code, _ = strings.Cut(rest, ":")
		}
		errNode := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
		if code != "" {
			errNode = str(code)
		}
		e := mapping()
		add(e, "id", str(t.ID))
		add(e, "listingId", integerNode(int64(t.ListingID)))
		add(e, "buyer", str(t.Buyer.String()))
		add(e, "buyerName", str(t.BuyerName))
		add(e, "seller", str(t.Seller.String()))
		add(e, "sellerName", str(t.SellerName))
		add(e, "item", item)
		add(e, "amount", integerNode(int64(t.Item.Amount)))
		add(e, "price", price(t.Price))
		add(e, "fee", price(t.Fee))
		add(e, "sellerReceived", price(t.SellerNet))
		add(e, "timestamp", integerNode(t.CreatedAt().UnixMilli()))
		add(e, "state", str(state))
		add(e, "error", errNode)
		add(e, "rated", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(t.Rating > 0)})
		add(e, "materialKey", str(t.Item.Material))
		add(e, "displayName", str(displayName(t.Item)))
		add(e, "nexoId", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"})
		add(e, "oraxenId", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"})
		txs.Content = append(txs.Content, e)
	}
	add(root, "transactions", txs)
	return encode(root)
}

// displayName is a transaction's displayName as the plugin wrote it: the
// item's legacy display name, or its material with spaces in upper case.
func displayName(s market.ItemStack) string {
	if s.DisplayName != "" {
		return s.DisplayName
	}
	return strings.ToUpper(strings.ReplaceAll(s.Material, "_", " "))
}

package webhook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/rynek/rynek/internal/wire"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/playertext"
)

// A Discord delivery is a webhook execute body: an embed per event, in
// Polish like the board's live feed, up to ten embeds in one message when
// the endpoint is behind. Player text is shown as the console shows it
// (playertext.Plain) and its Markdown escaped, and the message allows no
// mentions, so that a player named "@everyone" or "[free](https://…)"
// pings nobody and links nowhere.

// Discord's limits on a message (docs.discord.com, "Embed Limits"): the
// lengths count UTF-16 code units, as Discord's JavaScript does.
const (
	discordEmbeds      = 10
	discordTitle       = 256
	discordDescription = 4096
	discordFieldName   = 256
	discordFieldValue  = 1024
	discordFooter      = 2048
	discordTotal       = 6000
	discordUsername    = 80
)

// The embeds' colours: a sale green, a new offer blue, a bid amber, a buy
// order violet, what leaves the market grey.
const (
	colorSale    = 0x2e7d32
	colorListing = 0x1565c0
	colorBid     = 0xef6c00
	colorOrder   = 0x6a1b9a
	colorGone    = 0x757575
)

// DiscordOptions are what a Discord encoder adds to the events.
type DiscordOptions struct {
	// Board is the board's public address ("https://rynek.example.pl"):
	// each embed's title links to the page of what it names. Empty: no
	// links.
	Board string
	// Username replaces the webhook's own name on the messages; empty
	// keeps the one set in Discord.
	Username string
}

// DiscordEncoder writes deliveries as Discord webhook messages.
type DiscordEncoder struct {
	board    string
	username string
}

// NewDiscord is the encoder of a format: discord endpoint. A board address
// that is not an absolute http(s) URL is an error: Discord refuses an
// embed whose url is not one, and would refuse every delivery.
func NewDiscord(o DiscordOptions) (*DiscordEncoder, error) {
	board := strings.TrimRight(o.Board, "/")
	if board != "" {
		u, err := url.Parse(board)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return nil, fmt.Errorf("the board's public address %q is not an absolute http(s) URL without a query", o.Board)
		}
	}
	name := strings.TrimSpace(playertext.Sanitize(o.Username))
	if n := utf16Len(name); n > discordUsername {
		return nil, fmt.Errorf("a Discord webhook's username is at most %d characters, %q is %d", discordUsername, o.Username, n)
	}
	return &DiscordEncoder{board: board, username: name}, nil
}

// discordMessage is Discord's execute-webhook body.
type discordMessage struct {
	Username        string          `json:"username,omitempty"`
	Embeds          []embed         `json:"embeds"`
	AllowedMentions allowedMentions `json:"allowed_mentions"`
}

type allowedMentions struct {
	Parse []string `json:"parse"`
}

type embed struct {
	Title       string  `json:"title"`
	Description string  `json:"description,omitempty"`
	URL         string  `json:"url,omitempty"`
	Color       int     `json:"color"`
	Fields      []field `json:"fields,omitempty"`
	Footer      footer  `json:"footer"`
	Timestamp   string  `json:"timestamp"`
}

type field struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Inline bool   `json:"inline"`
}

type footer struct {
	Text string `json:"text"`
}

// size is what the embed counts towards a message's 6000 characters.
func (e embed) size() int {
	n := utf16Len(e.Title) + utf16Len(e.Description) + utf16Len(e.Footer.Text)
	for _, f := range e.Fields {
		n += utf16Len(f.Name) + utf16Len(f.Value)
	}
	return n
}

// Encode writes the oldest events, up to ten, into one message: as many
// as fit in Discord's limits, at least one.
func (d *DiscordEncoder) Encode(events []market.Event, _ time.Time) (Delivery, int, error) {
	if len(events) == 0 {
		return Delivery{}, 0, errors.New("discord webhook: no event to encode")
	}
	ws := make([]wire.Event, min(len(events), discordEmbeds))
	for i := range ws {
		ws[i] = wire.NewEvent(events[i])
	}
	msg := d.message(ws)
	carried := len(msg.Embeds)
	body, err := d.encode(msg)
	if err != nil {
		return Delivery{}, 0, fmt.Errorf("discord message of events %d to %d: %w", events[0].Seq(), events[carried-1].Seq(), err)
	}
	return Delivery{Body: body, Through: events[carried-1].Seq()}, carried, nil
}

// encode is a message's JSON, with < > & as they are (Discord reads
// JSON, not HTML, and the goldens read better).
func (d *DiscordEncoder) encode(msg discordMessage) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(msg); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// message is the oldest events as one message, as many as Discord takes:
// ten embeds, 6000 characters in all; the first always.
func (d *DiscordEncoder) message(events []wire.Event) discordMessage {
	msg := discordMessage{Username: d.username, AllowedMentions: allowedMentions{Parse: []string{}}}
	total := 0
	for _, e := range events[:min(len(events), discordEmbeds)] {
		em := d.embed(e)
		if len(msg.Embeds) > 0 && total+em.size() > discordTotal {
			break
		}
		msg.Embeds = append(msg.Embeds, em)
		total += em.size()
	}
	return msg
}

// embed is one event as Discord shows it: what happened in a sentence of
// the board's feed, the figures beside it, a link to the board's page.
func (d *DiscordEncoder) embed(e wire.Event) embed {
	em := embed{Footer: footer{Text: fmt.Sprintf("Rynek · zdarzenie #%d", e.Seq)}, Timestamp: e.At.String()}

	switch {
	case e.Event == "ListingCreatedEvent" && e.Listing != nil:
		d.listingCreated(&em, *e.Listing)
	case e.Event == "ListingRemovedEvent" && e.Listing != nil:
		l := *e.Listing
		em.Color, em.URL = colorGone, d.link("/item/", l.Item.Material)
		em.Title = "Oferta " + reason(e.Reason)
		em.Description = itemText(l.Item) + " — oferta " + reason(e.Reason)
		em.Fields = []field{{"Sprzedawca", player(l.Seller.Name), true}, {"Cena", money(l.Price), true}}
	case e.Event == "TransactionCompletedEvent" && e.Transaction != nil:
		t := *e.Transaction
		em.Color, em.URL = colorSale, d.link("/item/", t.Item.Material)
		em.Title = "Sprzedaż: " + itemText(t.Item)
		em.Description = bold(t.Buyer.Name) + " kupuje " + itemText(t.Item) + " od " + bold(t.Seller.Name) + " za " + money(t.Price)
		if t.BuyOrder != 0 {
			em.Description += fmt.Sprintf(" (zlecenie kupna #%d)", t.BuyOrder)
		}
		em.Fields = enchanted([]field{{"Cena", money(t.Price), true}, {"Sprzedawca", player(t.Seller.Name), true}, {"Kupujący", player(t.Buyer.Name), true}}, t.Item)
	case e.Event == "BidPlacedEvent" && e.Listing != nil && e.Bid != nil:
		l, b := *e.Listing, *e.Bid
		em.Color, em.URL = colorBid, d.link("/listing/", fmt.Sprint(l.ID))
		em.Title = fmt.Sprintf("Licytacja #%d: %s", l.ID, itemText(l.Item))
		em.Description = bold(b.Bidder.Name) + " licytuje " + itemText(l.Item) + ": " + money(b.Amount)
		em.Fields = []field{{"Oferta", money(b.Amount), true}, {"Koniec", discordTime(b.EndsAt), true}}
		if b.PreviousLeader != nil {
			em.Fields = append(em.Fields, field{"Przebita oferta gracza", player(b.PreviousLeader.Name), true})
		}
	case e.Event == "AuctionEndedEvent" && e.Ended != nil:
		x := *e.Ended
		em.URL = d.link("/listing/", fmt.Sprint(x.ListingID))
		em.Title = fmt.Sprintf("Licytacja #%d zakończona", x.ListingID)
		if x.Winner == nil || x.Price == nil {
			em.Color = colorGone
			em.Description = fmt.Sprintf("Licytacja #%d zakończona bez ofert", x.ListingID)
			break
		}
		em.Color = colorSale
		em.Description = fmt.Sprintf("Licytacja #%d zakończona: wygrywa %s za %s", x.ListingID, bold(x.Winner.Name), money(*x.Price))
		em.Fields = []field{{"Cena", money(*x.Price), true}, {"Kupujący", player(x.Winner.Name), true}}
	case e.Order != nil:
		d.order(&em, e)
	default:
		em.Color, em.Title = colorGone, e.Event // an event newer than this encoder: its name at least
	}
	if e.Seq == 0 {
		// A test event (the console's t): no event of the log has seq 0.
		em.Title, em.Footer.Text = "Test: "+em.Title, "Rynek · test, nie zdarzenie rynku"
	}
	return em.cut()
}

func (d *DiscordEncoder) listingCreated(em *embed, l wire.Listing) {
	em.Color, em.URL = colorListing, d.link("/listing/", fmt.Sprint(l.ID))
	if l.Auction == nil {
		em.Title = "Nowa oferta: " + itemText(l.Item)
		em.Description = bold(l.Seller.Name) + " wystawia " + itemText(l.Item) + " za " + money(l.Price)
		em.Fields = enchanted([]field{{"Cena", money(l.Price), true}, {"Za sztukę", money(l.UnitPrice), true}, {"Sprzedawca", player(l.Seller.Name), true}}, l.Item)
		return
	}
	a := *l.Auction
	em.Title = "Nowa licytacja: " + itemText(l.Item)
	em.Description = bold(l.Seller.Name) + " wystawia na licytację " + itemText(l.Item) + ", cena wywoławcza " + money(a.StartingBid)
	em.Fields = []field{{"Cena wywoławcza", money(a.StartingBid), true}}
	if a.BuyNow != nil {
		em.Fields = append(em.Fields, field{"Kup teraz", money(*a.BuyNow), true})
	}
	em.Fields = enchanted(append(em.Fields, field{"Koniec", discordTime(a.EndsAt), true}, field{"Sprzedawca", player(l.Seller.Name), true}), l.Item)
}

// order is a buy order's event: placed, filled (what the buyer bought,
// from whom, at what unit price), closed (cancelled, expired, filled).
func (d *DiscordEncoder) order(em *embed, e wire.Event) {
	o := *e.Order
	what := func(n int) string { return itemText(wire.Item{Amount: n, Name: o.Name}) }
	em.Color, em.URL = colorOrder, d.link("/item/", o.Material)
	buyer := bold(o.BuyerName)
	switch {
	case e.Event == "BuyOrderPlacedEvent":
		em.Title = "Zlecenie kupna: " + what(o.Amount)
		em.Description = buyer + " chce kupić " + what(o.Amount) + " po " + money(o.UnitPrice)
		em.Fields = []field{{"Za sztukę", money(o.UnitPrice), true}, {"Kupujący", player(o.BuyerName), true}}
	case e.Event == "BuyOrderFilledEvent" && e.Fill != nil:
		f := *e.Fill
		em.Color = colorSale
		em.Title = "Sprzedaż do zlecenia kupna: " + what(f.Amount)
		em.Description = buyer + " kupuje " + what(f.Amount) + " od " + bold(f.Seller.Name) + " po " + money(f.UnitPrice)
		em.Fields = []field{{"Za sztukę", money(f.UnitPrice), true}, {"Razem", money(f.Price), true},
			{"Sprzedawca", player(f.Seller.Name), true}, {"Kupujący", player(o.BuyerName), true},
			{"Kupione", fmt.Sprintf("%s z %s", number(o.Filled), number(o.Amount)), true}}
	case e.Reason == "cancelled":
		em.Color = colorGone
		em.Title = "Zlecenie kupna wycofane: " + what(o.Amount-o.Filled)
		em.Description = buyer + " wycofuje zlecenie kupna: " + what(o.Amount-o.Filled) + " po " + money(o.UnitPrice)
	case e.Reason == "expired":
		em.Color = colorGone
		em.Title = "Zlecenie kupna wygasło: " + what(o.Amount-o.Filled)
		em.Description = "Wygasa zlecenie kupna gracza " + buyer + ": " + what(o.Amount-o.Filled) + " po " + money(o.UnitPrice)
	default: // filled
		em.Title = "Zlecenie kupna wypełnione: " + what(o.Amount)
		em.Description = "Zlecenie kupna gracza " + buyer + " wypełnione: " + what(o.Amount) + " po " + money(o.UnitPrice)
	}
	if e.Event == "BuyOrderClosedEvent" && e.Refund != "" && e.Refund != "0.00" {
		em.Fields = append(em.Fields, field{"Zwrot", money(e.Refund), true})
	}
}

// link is the board's page of what an embed names ("" and "": the
// board's home); "" without a board.
func (d *DiscordEncoder) link(page, id string) string {
	if d.board == "" {
		return ""
	}
	if page == "" {
		return d.board + "/"
	}
	return d.board + page + url.PathEscape(id)
}

// cut holds every part of the embed to Discord's limits.
func (e embed) cut() embed {
	e.Title = cut(e.Title, discordTitle)
	e.Description = cut(e.Description, discordDescription)
	e.Footer.Text = cut(e.Footer.Text, discordFooter)
	for i := range e.Fields {
		e.Fields[i].Name = cut(e.Fields[i].Name, discordFieldName)
		e.Fields[i].Value = cut(e.Fields[i].Value, discordFieldValue)
	}
	return e
}

// The longest a player's name and an item's name are shown: a name is 16
// characters in the game, a display name can be long, and neither should
// crowd the figures out of an embed.
const (
	maxPlayer = 64
	maxItem   = 200
)

// itemText names a stack as the board does: "64× Oak Log" (the display
// name without its § codes when it has one), Markdown escaped.
func itemText(it wire.Item) string {
	name := escape(cut(playertext.Plain(it.Name), maxItem))
	if it.Amount > 1 {
		return number(it.Amount) + "× " + name
	}
	return name
}

// enchanted adds an enchanted item's enchantments to fields, as the board
// lists them: "Efficiency V, Unbreaking III".
func enchanted(fields []field, it wire.Item) []field {
	if len(it.Enchantments) == 0 {
		return fields
	}
	names := make([]string, len(it.Enchantments))
	for i, e := range it.Enchantments {
		names[i] = escape(playertext.Plain(e.Name)) + " " + level(e.Level)
	}
	return append(fields, field{"Zaklęcia", strings.Join(names, ", "), false})
}

// level is an enchantment's level as the game shows it: roman to X.
func level(n int) string {
	if n >= 1 && n <= 10 {
		return [...]string{"I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X"}[n-1]
	}
	return fmt.Sprint(n)
}

// player is a player's name, shown and escaped.
func player(name string) string { return escape(cut(playertext.Plain(name), maxPlayer)) }

// bold is a player's name in bold, as the feed sets it apart.
func bold(name string) string { return "**" + player(name) + "**" }

// discordTime is an instant Discord shows in the reader's own time zone,
// relative ("za 3 godziny" in a Polish client).
func discordTime(t wire.Time) string { return fmt.Sprintf("<t:%d:R>", t.Unix()) }

// reasons are the words of ListingRemovedEvent's reasons (the board's
// REASONS in polish.js).
var reasons = map[string]string{
	"removed":       "wycofana przez sprzedawcę",
	"admin-removed": "usunięta przez administratora",
	"force-expire":  "wygaszona przez administratora",
}

func reason(r string) string {
	if w, ok := reasons[r]; ok {
		return w
	}
	return "zdjęta z rynku"
}

// markdown is what Discord reads as Markdown, a mention, a link or a
// timestamp: each is shown as typed behind a backslash.
const markdown = "\\*_~`|>#-[]()<:@!"

// escape makes player text show as typed in Discord: every Markdown
// character behind a backslash, so that "**x**" is not bold, "https://…"
// is no link and "@everyone" no mention (allowed_mentions is the second
// lock on that door).
func escape(s string) string {
	if !strings.ContainsAny(s, markdown) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(markdown, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// cut shortens s to at most n UTF-16 code units, on a rune boundary, with
// "…" at the end when it cut; never leaving half of an escape ("\") last.
func cut(s string, n int) string {
	if utf16Len(s) <= n {
		return s
	}
	used, end := 0, 0
	for i, r := range s {
		w := utf16.RuneLen(r)
		if w < 0 {
			w = 1
		}
		if used+w > n-1 { // room for the ellipsis
			break
		}
		used += w
		end = i + utf8.RuneLen(r)
	}
	out := s[:end]
	if trailing := len(out) - len(strings.TrimRight(out, "\\")); trailing%2 == 1 {
		out = out[:len(out)-1]
	}
	return out + "…"
}

// utf16Len is the length of s as Discord counts it.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if w := utf16.RuneLen(r); w > 0 {
			n += w
		} else {
			n++
		}
	}
	return n
}

// money writes the wire's decimal string of cents the Polish way, as the
// board's Intl pl-PL does: a comma before the grosze, a no-break space
// between thousands once the whole part has five digits ("1234,50",
// "12 345,50").
func money(s string) string {
	whole, frac, ok := strings.Cut(s, ".")
	if !ok {
		frac = "00"
	}
	return group(whole) + "," + frac
}

// number writes a count the Polish way: "64", "1234", "10 000".
func number(n int) string { return group(fmt.Sprint(n)) }

// group puts a no-break space between the thousands of a whole number
// of five digits or more (CLDR's minimum grouping digits for Polish is 2).
func group(whole string) string {
	sign := ""
	if strings.HasPrefix(whole, "-") {
		sign, whole = "-", whole[1:]
	}
	if len(whole) < 5 {
		return sign + whole
	}
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteRune('\u00a0')
		}
		b.WriteRune(c)
	}
	return sign + b.String()
}

package webhook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/rynek/rynek/internal/wire"
	"github.com/rynek/rynek/market"
)

// testBoard is the board's public address in the tests.
const testBoard = "https://rynek.example.pl/"

func newTestDiscord(t *testing.T) *DiscordEncoder {
	t.Helper()
	d, err := NewDiscord(DiscordOptions{Board: testBoard, Username: "Rynek"})
	must(t, err)
	return d
}

// TestDiscordGolden pins the message of each kind of event, one embed
// each, as Discord receives it. Regenerate with:
// go test ./internal/webhook -run TestDiscordGolden -update
func TestDiscordGolden(t *testing.T) {
	d := newTestDiscord(t)
	names := []string{"ListingCreated", "ListingRemoved", "ListingCreatedStack", "TransactionCompleted", "AuctionCreated",
		"BidPlaced", "BidPlacedOutbidding", "AuctionCreatedHostileName", "AuctionSale", "AuctionEndedWon", "AuctionEndedWithoutBids",
		"BuyOrderPlaced", "OrderFillSale", "BuyOrderFilled", "BuyOrderClosedFilled", "BuyOrderPlacedIron", "BuyOrderClosedCancelled",
		"BuyOrderPlacedCobblestone", "BuyOrderClosedExpired"}
	events := testEvents(t)
	if len(events) != len(names) {
		t.Fatalf("%d events, want %d", len(events), len(names))
	}
	for i, e := range events {
		t.Run(fmt.Sprintf("%02d-%s", i+1, names[i]), func(t *testing.T) {
			dl, n, err := d.Encode([]market.Event{e}, testAt)
			must(t, err)
			if n != 1 || dl.Through != e.Seq() || len(dl.Header) != 0 {
				t.Fatalf("carried %d through %d with headers %v, want 1 through %d and none", n, dl.Through, dl.Header, e.Seq())
			}
			var pretty bytes.Buffer
			must(t, json.Indent(&pretty, dl.Body, "", "  "))
			pretty.WriteByte('\n')
			golden.RequireEqual(t, pretty.Bytes())
		})
	}
}

// TestDiscordWordsLikeTheBoard: the descriptions say what the board's live
// feed says, in Polish, with Polish numbers.
func TestDiscordWordsLikeTheBoard(t *testing.T) {
	d := newTestDiscord(t)
	events := testEvents(t)
	want := map[int]string{
		0:  "**Kowalski** wystawia Topór Kowala za 703,20",
		1:  "Topór Kowala — oferta wycofana przez sprzedawcę",
		3:  "**Nowak\\_2** kupuje 64× Diamond od **Kowalski** za 12\u00a0345,50",
		4:  "**Kowalski** wystawia na licytację Topór Kowala, cena wywoławcza 100,00",
		6:  "**Wisniewska** licytuje Topór Kowala: 150,00",
		9:  "Licytacja #3 zakończona: wygrywa **Wisniewska** za 150,00",
		10: "Licytacja #4 zakończona bez ofert",
		11: "**Nowak\\_2** chce kupić 20× Oak Log po 2,50",
		13: "**Nowak\\_2** kupuje 20× Oak Log od **Kowalski** po 2,50",
		16: "**Nowak\\_2** wycofuje zlecenie kupna: 10× Iron Ingot po 2,00",
		18: "Wygasa zlecenie kupna gracza **Nowak\\_2**: 2304× Cobblestone po 0,05",
	}
	for i, text := range want {
		dl, _, err := d.Encode(events[i:i+1], testAt)
		must(t, err)
		var msg discordMessage
		must(t, json.Unmarshal(dl.Body, &msg))
		if got := msg.Embeds[0].Description; got != text {
			t.Errorf("event %d (%s): %q, want %q", i, events[i].EventName(), got, text)
		}
	}
}

// TestDiscordPlayerTextPingsNobody: an item named with § codes, bold
// Markdown, @everyone, a masked link, a bell and a user mention shows as
// typed: no code, no control character, every Markdown character escaped,
// and the message allows no mentions at all.
func TestDiscordPlayerTextPingsNobody(t *testing.T) {
	d := newTestDiscord(t)
	e := testEvents(t)[7]
	dl, _, err := d.Encode([]market.Event{e}, testAt)
	must(t, err)
	var msg discordMessage
	must(t, json.Unmarshal(dl.Body, &msg))
	title := `Nowa licytacja: \*\*\@everyone\*\* \[za darmo\]\(https\://evil.example\) \<\@123\>`
	if got := msg.Embeds[0].Title; got != title {
		t.Errorf("title %q\nwant  %q", got, title)
	}
	if !bytes.Contains(dl.Body, []byte(`"allowed_mentions":{"parse":[]}`)) {
		t.Errorf("the message allows mentions: %s", dl.Body)
	}
	if bytes.ContainsAny(dl.Body, "§\a") || bytes.Contains(dl.Body, []byte(`\u0007`)) {
		t.Errorf("a § code or a control character reached Discord: %s", dl.Body)
	}
}

// TestDiscordBatchesWhenBehind: an endpoint behind gets ten events to a
// message, in order, the next message starting where the first stopped.
func TestDiscordBatchesWhenBehind(t *testing.T) {
	d := newTestDiscord(t)
	events := testEvents(t)
	var seqs []uint64
	for rest := events; len(rest) > 0; {
		dl, n, err := d.Encode(rest, testAt)
		must(t, err)
		var msg discordMessage
		must(t, json.Unmarshal(dl.Body, &msg))
		if n != len(msg.Embeds) || n > 10 || dl.Through != rest[n-1].Seq() {
			t.Fatalf("carried %d in %d embeds through %d", n, len(msg.Embeds), dl.Through)
		}
		for _, em := range msg.Embeds {
			var seq uint64
			fmt.Sscanf(em.Footer.Text, "Rynek · zdarzenie #%d", &seq)
			seqs = append(seqs, seq)
		}
		rest = rest[n:]
	}
	if len(seqs) != len(events) {
		t.Fatalf("%d embeds for %d events", len(seqs), len(events))
	}
	for i, e := range events {
		if seqs[i] != e.Seq() {
			t.Fatalf("embed %d is event %d, want %d", i, seqs[i], e.Seq())
		}
	}
	if _, n, _ := d.Encode(events, testAt); n != 10 {
		t.Fatalf("the first message carried %d events, want 10", n)
	}
}

// TestDiscordLimits: text as long as players can make it is cut on rune
// boundaries within Discord's limits, never leaving half an escape, and a
// message of long embeds stops before 6000 characters.
func TestDiscordLimits(t *testing.T) {
	d := newTestDiscord(t)
	long := strings.Repeat("Ż*ółw🐢", 2000)
	ev := wire.Event{Seq: 7, Event: "TransactionCompletedEvent", Transaction: &wire.Transaction{
		Buyer: wire.Player{Name: long}, Seller: wire.Player{Name: long}, Price: "1.00",
		Item: wire.Item{Material: "STONE", Name: long, Amount: 64}}}
	events := make([]wire.Event, 10)
	for i := range events {
		events[i] = ev
	}
	msg := d.message(events)
	if n := len(msg.Embeds); n < 1 || n == 10 {
		t.Fatalf("%d embeds of long text in one message", n)
	}
	total := 0
	for _, em := range msg.Embeds {
		total += em.size()
		for name, part := range map[string]struct {
			text string
			max  int
		}{"title": {em.Title, discordTitle}, "description": {em.Description, discordDescription}, "footer": {em.Footer.Text, discordFooter}} {
			if utf16Len(part.text) > part.max || !utf8.ValidString(part.text) {
				t.Errorf("%s of %d characters (at most %d), valid UTF-8 %v", name, utf16Len(part.text), part.max, utf8.ValidString(part.text))
			}
		}
		for _, f := range em.Fields {
			if utf16Len(f.Value) > discordFieldValue || utf16Len(f.Name) > discordFieldName || !utf8.ValidString(f.Value) {
				t.Errorf("field %q of %d characters", f.Name, utf16Len(f.Value))
			}
		}
	}
	if total > discordTotal {
		t.Fatalf("a message of %d characters, Discord takes %d", total, discordTotal)
	}
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"abcdef", 6, "abcdef"},
		{"abcdefg", 6, "abcde…"},
		{"ab🐢cdef", 4, "ab…"},    // the turtle is two UTF-16 units: it does not fit with the ellipsis
		{`abc\*def`, 5, "abc…"},  // never half an escape
		{`ab\\*def`, 5, `ab\\…`}, // an escaped backslash stays whole
		{"żółćżółć", 5, "żółć…"},
	} {
		if got := cut(c.in, c.n); got != c.want {
			t.Errorf("cut(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

func TestPolishNumbers(t *testing.T) {
	for in, want := range map[string]string{"0.05": "0,05", "703.20": "703,20", "1234.50": "1234,50",
		"12345.50": "12\u00a0345,50", "3072658.93": "3\u00a0072\u00a0658,93"} {
		if got := money(in); got != want {
			t.Errorf("money(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNewDiscordRefusesABadBoard(t *testing.T) {
	for _, board := range []string{"rynek.example.pl", "ftp://rynek.example.pl", "https://rynek.example.pl/?x=1", "https:///path"} {
		if _, err := NewDiscord(DiscordOptions{Board: board}); err == nil || !strings.Contains(err.Error(), "not an absolute http(s) URL") {
			t.Errorf("NewDiscord(%q): %v", board, err)
		}
	}
	if _, err := NewDiscord(DiscordOptions{Username: strings.Repeat("x", 81)}); err == nil {
		t.Error("an 81-character username was taken")
	}
}

func TestNewEncoder(t *testing.T) {
	if _, err := NewEncoder(Endpoint{Name: "site", Format: Standard, Secret: vectorSecret}); err != nil {
		t.Error(err)
	}
	enc, err := EncoderWith(DiscordOptions{Board: testBoard})(Endpoint{Name: "discord", Format: Discord})
	must(t, err)
	if d, ok := enc.(*DiscordEncoder); !ok || d.board != "https://rynek.example.pl" {
		t.Errorf("EncoderWith's discord encoder: %#v", enc)
	}
	for _, c := range []struct {
		e    Endpoint
		want string
	}{
		{Endpoint{Name: "site", Format: Standard, Secret: "hunter2"}, `webhook site: a webhook secret starts with "whsec_"`},
		{Endpoint{Name: "x", Format: "slack"}, `webhook x: format "slack" is not one of standard, discord`},
	} {
		if _, err := NewEncoder(c.e); err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("NewEncoder(%+v): %v, want %q", c.e, err, c.want)
		}
	}
	if _, err := EncoderWith(DiscordOptions{Board: "rynek.example.pl"})(Endpoint{Name: "d", Format: Discord}); err == nil ||
		!strings.HasPrefix(err.Error(), "webhook d: the board's public address") {
		t.Errorf("a bad board: %v", err)
	}
}

package webhook

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rynek/rynek/internal/wire"
	"github.com/rynek/rynek/market"
)

// The Standard Webhooks specification's published test vector: the
// reference libraries' TestWebhookSign (standard-webhooks/standard-webhooks,
// libraries/go/webhook_test.go; the same values in the JavaScript, Python
// and Rust libraries' tests).
const (
	vectorSecret    = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	vectorID        = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	vectorTimestamp = 1614265330
	vectorPayload   = `{"test": 2432232314}`
	vectorSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
)

func TestSignMatchesTheSpecificationsVector(t *testing.T) {
	key, err := ParseSecret(vectorSecret)
	if err != nil {
		t.Fatal(err)
	}
	if got := Sign(key, vectorID, time.Unix(vectorTimestamp, 0), []byte(vectorPayload)); got != vectorSignature {
		t.Fatalf("Sign = %q, want the vector's %q", got, vectorSignature)
	}
	h := http.Header{}
	h.Set("webhook-id", vectorID)
	h.Set("webhook-timestamp", strconv.Itoa(vectorTimestamp))
	h.Set("webhook-signature", vectorSignature)
	at := time.Unix(vectorTimestamp, 0)
	if err := Verify(vectorSecret, h, []byte(vectorPayload), at.Add(time.Minute), DefaultTolerance); err != nil {
		t.Fatalf("Verify of the vector: %v", err)
	}
}

// TestVerifyRefuses walks the reference libraries' cases: what is missing,
// altered, stale or early is refused with the error that says which; a
// header of several signatures passes when one of them matches.
func TestVerifyRefuses(t *testing.T) {
	at := time.Unix(vectorTimestamp, 0)
	header := func(edit func(http.Header)) http.Header {
		h := http.Header{}
		h.Set("webhook-id", vectorID)
		h.Set("webhook-timestamp", strconv.Itoa(vectorTimestamp))
		h.Set("webhook-signature", vectorSignature)
		if edit != nil {
			edit(h)
		}
		return h
	}
	other := "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc="
	for _, c := range []struct {
		name string
		h    http.Header
		body string
		now  time.Time
		want error
	}{
		{"no id", header(func(h http.Header) { h.Del("webhook-id") }), vectorPayload, at, ErrMissingHeader},
		{"no timestamp", header(func(h http.Header) { h.Del("webhook-timestamp") }), vectorPayload, at, ErrMissingHeader},
		{"no signature", header(func(h http.Header) { h.Del("webhook-signature") }), vectorPayload, at, ErrMissingHeader},
		{"another signature", header(func(h http.Header) { h.Set("webhook-signature", other) }), vectorPayload, at, ErrSignature},
		{"another body", header(nil), `{"test": 2432232315}`, at, ErrSignature},
		{"another id", header(func(h http.Header) { h.Set("webhook-id", "msg_2") }), vectorPayload, at, ErrSignature},
		{"a v2 signature of the same bytes", header(func(h http.Header) { h.Set("webhook-signature", "v2"+vectorSignature[2:]) }), vectorPayload, at, ErrSignature},
		{"stale", header(nil), vectorPayload, at.Add(DefaultTolerance + time.Second), ErrTimestamp},
		{"from the future", header(nil), vectorPayload, at.Add(-DefaultTolerance - time.Second), ErrTimestamp},
		{"not a number", header(func(h http.Header) { h.Set("webhook-timestamp", "yesterday") }), vectorPayload, at, ErrTimestamp},
		{"several, one matching", header(func(h http.Header) { h.Set("webhook-signature", other+" v2,abc "+vectorSignature) }), vectorPayload, at, nil},
		{"at the edge of the tolerance", header(nil), vectorPayload, at.Add(DefaultTolerance), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := Verify(vectorSecret, c.h, []byte(c.body), c.now, DefaultTolerance)
			if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
				t.Fatalf("Verify: %v, want %v", err, c.want)
			}
		})
	}
}

// TestParseSecretRefusesWhatIsNotAKey: a secret without the prefix, not
// base64 or empty is refused when the endpoint is built, and the error
// never repeats the secret.
func TestParseSecretRefusesWhatIsNotAKey(t *testing.T) {
	for secret, want := range map[string]string{
		"MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw": `starts with "whsec_"`,
		"whsec_not base64!!":               "not base64",
		"whsec_":                           "is empty",
	} {
		_, err := NewStandard(secret)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("NewStandard(%q): %v, want an error saying %q", secret, err, want)
			continue
		}
		if rest := strings.TrimPrefix(secret, "whsec_"); rest != "" && strings.Contains(err.Error(), rest) {
			t.Errorf("the error %q repeats the secret", err)
		}
	}
}

// FuzzVerifySign: whatever the key, id, time and body, Verify accepts what
// Sign signed, and refuses it once a byte of the body changes.
func FuzzVerifySign(f *testing.F) {
	f.Add([]byte("0123456789abcdef01234567"), "1", int64(vectorTimestamp), []byte(vectorPayload))
	f.Add([]byte("\x00\xff0123456789abcdef012345678"), "18446744073709551615", int64(0), []byte{})
	f.Fuzz(func(t *testing.T, key []byte, id string, sec int64, body []byte) {
		if len(key) == 0 || strings.ContainsAny(id, " \t\r\n") || id == "" || strings.TrimSpace(id) != id {
			return
		}
		if sec < 0 || sec > 1<<40 {
			return
		}
		secret := "whsec_" + base64.StdEncoding.EncodeToString(key)
		at := time.Unix(sec, 0)
		h := http.Header{}
		h.Set("webhook-id", id)
		h.Set("webhook-timestamp", strconv.FormatInt(sec, 10))
		h.Set("webhook-signature", Sign(key, id, at, body))
		if h.Get("webhook-id") != id {
			return // a header value net/http would not carry as is
		}
		if err := Verify(secret, h, body, at, DefaultTolerance); err != nil {
			t.Fatalf("Verify(Sign): %v", err)
		}
		altered := append([]byte{'x'}, body...)
		if err := Verify(secret, h, altered, at, DefaultTolerance); !errors.Is(err, ErrSignature) {
			t.Fatalf("Verify of an altered body: %v", err)
		}
	})
}

// TestStandardDeliversOneSignedEvent: each delivery carries the oldest
// event as the stream's data: line has it, with webhook-id its seq (the
// same on every retry) and a signature a receiver's Verify accepts.
func TestStandardDeliversOneSignedEvent(t *testing.T) {
	enc, err := NewStandard(vectorSecret)
	if err != nil {
		t.Fatal(err)
	}
	events := testEvents(t)
	now := time.Unix(1795320725, 0)
	d, n, err := enc.Encode(events[3:], now)
	if err != nil {
		t.Fatal(err)
	}
	stream, err := json.Marshal(wire.NewEvent(events[3])) // what encodeFrame puts after data:
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 || d.Through != 9 || !bytes.Equal(d.Body, stream) {
		t.Fatalf("carried %d through %d:\n%s\nwant 1 through 9:\n%s", n, d.Through, d.Body, stream)
	}
	if !bytes.HasPrefix(d.Body, []byte(`{"seq":9,"event":"TransactionCompletedEvent","at":"2026-11-22T03:12:05.000Z","origin":"rynek","transaction":{`)) {
		t.Errorf("body %s", d.Body)
	}
	if id, ts := d.Header.Get("webhook-id"), d.Header.Get("webhook-timestamp"); id != "9" || ts != "1795320725" {
		t.Errorf("webhook-id %q, webhook-timestamp %q", id, ts)
	}
	if err := Verify(vectorSecret, d.Header, d.Body, now.Add(2*time.Second), DefaultTolerance); err != nil {
		t.Fatalf("a receiver's Verify: %v", err)
	}
	again, _, err := enc.Encode(events[3:], now.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if again.Header.Get("webhook-id") != "9" || again.Header.Get("webhook-signature") == d.Header.Get("webhook-signature") {
		t.Errorf("a retry: id %q, signature %q (the first %q)", again.Header.Get("webhook-id"),
			again.Header.Get("webhook-signature"), d.Header.Get("webhook-signature"))
	}
}

// testSeq is an event of the market as a test event has it: seq 0, which
// no entry of the log has (market.TestEvent on the delivery's side).
type testSeq struct{ market.Event }

func (testSeq) Seq() uint64 { return 0 }

// TestTestEventsAreEachNew: a test event (seq 0) goes with its own
// webhook-id, "test-" and the attempt's Unix milliseconds, so that a
// receiver deduplicating by webhook-id takes each test as new, and none
// for an event of the market; it is signed like any other. A Discord
// test says so in its title and footer.
func TestTestEventsAreEachNew(t *testing.T) {
	enc, err := NewStandard(vectorSecret)
	must(t, err)
	now := time.Date(2026, 11, 26, 7, 0, 0, 123e6, time.UTC)
	test := testSeq{testEvents(t)[3]}
	d, n, err := enc.Encode([]market.Event{test}, now)
	must(t, err)
	if id := d.Header.Get("webhook-id"); id != "test-1795676400123" || n != 1 || d.Through != 0 {
		t.Fatalf("webhook-id %q, carried %d through %d", id, n, d.Through)
	}
	must(t, Verify(vectorSecret, d.Header, d.Body, now, DefaultTolerance))
	d2, _, err := enc.Encode([]market.Event{test}, now.Add(time.Second))
	must(t, err)
	if d2.Header.Get("webhook-id") == d.Header.Get("webhook-id") {
		t.Fatal("two tests went with one webhook-id")
	}
	em := newTestDiscord(t).embed(wire.Event{Seq: 0, Event: "TransactionCompletedEvent", Transaction: &wire.Transaction{
		Buyer: wire.Player{Name: "Test"}, Seller: wire.Player{Name: "Test"}, Price: "1.00", Item: wire.Item{Name: "Diamond", Amount: 1, Material: "DIAMOND"}}})
	if em.Title != "Test: Sprzedaż: Diamond" || em.Footer.Text != "Rynek · test, nie zdarzenie rynku" {
		t.Fatalf("the Discord test: %q, %q", em.Title, em.Footer.Text)
	}
}

package webhook

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/rynek/rynek/internal/wire"
)

// TestEventName is the event of a test delivery (the console's t): no
// market event has it, so a receiver can tell a test from the market.
const TestEventName = "TestEvent"

// Tester is an Encoder that also writes a test delivery: what the console's
// "send a test event" posts to an endpoint to show that it is reached and,
// for standard, that its secret verifies. A test delivery carries no
// market event: its Through is 0 and it moves no position.
type Tester interface {
	EncodeTest(now time.Time) (Delivery, error)
}

// testEvent is a test delivery's event in the wire's shape: seq 0 (no
// event of the log has it), TestEvent, the time of the attempt.
func testEvent(now time.Time) wire.Event {
	return wire.Event{Event: TestEventName, At: wire.At(now)}
}

// EncodeTest writes a signed test delivery: {"seq":0,"event":"TestEvent",
// "at":…}, its webhook-id "test-" and the attempt's Unix milliseconds, so
// that a receiver deduplicating by webhook-id takes every test as new and
// never mistakes one for an event of the market.
func (s *StandardEncoder) EncodeTest(now time.Time) (Delivery, error) {
	body, err := marshalWire(testEvent(now))
	if err != nil {
		return Delivery{}, err
	}
	id := "test-" + strconv.FormatInt(now.UnixMilli(), 10)
	h := http.Header{}
	h.Set(HeaderID, id)
	h.Set(HeaderTimestamp, strconv.FormatInt(now.Unix(), 10))
	h.Set(HeaderSignature, Sign(s.key, id, now, body))
	return Delivery{Body: body, Header: h}, nil
}

// EncodeTest writes a message of one embed saying, in Polish, that the
// channel is connected.
func (d *DiscordEncoder) EncodeTest(now time.Time) (Delivery, error) {
	em := embed{Title: "Test webhooka Rynku", Color: colorListing,
		Description: "Wiadomość testowa: ten kanał dostaje zdarzenia rynku.", URL: d.link("", ""),
		Footer: footer{Text: "Rynek · test"}, Timestamp: wire.At(now).String()}
	body, err := d.encode(discordMessage{Username: d.username, Embeds: []embed{em}, AllowedMentions: allowedMentions{Parse: []string{}}})
	if err != nil {
		return Delivery{}, fmt.Errorf("discord test message: %w", err)
	}
	return Delivery{Body: body}, nil
}

// Package webhook tells the admin's web services what happens on the
// market: it follows the market's durable event log and posts each event
// (or a batch of them) to every endpoint configured under webhooks: in
// rynek.yml, in seq order, at least once, resuming after a crash or a
// restart from the position stored in the market. Delivery runs on its
// own goroutines and never holds up the main thread.
//
// An endpoint's format decides what a delivery looks like: Standard
// Webhooks 1.0 (one signed POST per event, its JSON as the event stream
// sends it) or a Discord webhook message (embeds in Polish). An Encoder
// builds the requests; the delivery loop sends them, retries and keeps the
// position.
package webhook

import (
	"net/http"
	"time"

	"github.com/rynek/rynek/market"
)

// Format names how an endpoint's deliveries are written (the format: key).
type Format string

const (
	// Standard is Standard Webhooks 1.0: a POST of one event's JSON, signed
	// with the endpoint's secret.
	Standard Format = "standard"
	// Discord is a Discord webhook message: an embed per event.
	Discord Format = "discord"
)

// Endpoint is one entry of webhooks: in rynek.yml.
type Endpoint struct {
	// Name names the endpoint in the console, the metrics and the stored
	// position; unique among the endpoints.
	Name string
	// URL is where deliveries are posted. It may carry a token (Discord's
	// does): show it with Redact.
	URL    string
	Format Format
	// Secret signs Standard deliveries: "whsec_" followed by the base64 of
	// the key. Never logged or shown.
	Secret string
	// Events are the contract event names delivered; empty: every event.
	Events []string
	// MinPrice, when positive, leaves out the events that carry a price
	// below it (a sale, an auction's end, a fill).
	MinPrice market.Money
}

// Delivery is one HTTP request an Encoder built: its body, the headers
// beside Content-Type: application/json, and the seq of the last event it
// carries (the endpoint's position once the receiver accepts it).
type Delivery struct {
	Body    []byte
	Header  http.Header
	Through uint64
}

// Encoder writes events into deliveries.
type Encoder interface {
	// Encode builds the next delivery from the oldest of events (never
	// empty; every one of them passed the endpoint's filter) and reports
	// how many of them it carries, at least one: a Standard delivery
	// carries one event, a Discord message up to ten. now is the time of
	// the attempt (Standard Webhooks' webhook-timestamp).
	Encode(events []market.Event, now time.Time) (d Delivery, carried int, err error)
}

// Status is an endpoint's delivery as the console and the metrics show it.
type Status struct {
	Name   string
	URL    string // Redact(URL): no token
	Format Format
	// Delivered is the seq of the last event the receiver accepted (the
	// stored position); Head the newest seq of the log; Lag the events
	// between them that the endpoint is to get.
	Delivered, Head uint64
	Lag             int
	// LastError says why the last attempt failed ("" after a success);
	// NextRetry is when the next attempt goes (zero when none waits).
	LastError string
	NextRetry time.Time
	// Failing is set once the receiver refused with a 4xx other than 408
	// and 429 several times: delivery waits for the admin (Resume).
	Failing bool
	Paused  bool
	// Skipped counts events the log's retention deleted before the
	// endpoint got them (its lag passed the cap).
	Skipped uint64
	// Test is the outcome of the last test event (SendTest): "taken
	// (HTTP 204)", "not taken: HTTP 404 Not Found", …; "" before the
	// first.
	Test string
}

// Control is what the console may do with the endpoints: read their state,
// pause and resume one, send it a test event. Every method is safe from
// any goroutine and returns at once; errors name the endpoint.
type Control interface {
	Status() []Status
	Pause(name string) error
	Resume(name string) error
	SendTest(name string) error
}

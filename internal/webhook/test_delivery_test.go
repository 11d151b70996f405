package webhook

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestTestDeliveries: the console's test event is a signed Standard
// delivery a receiver verifies, with an id no market event has, or a
// Discord message in Polish; neither moves the endpoint's position.
func TestTestDeliveries(t *testing.T) {
	now := time.Date(2026, 11, 26, 7, 0, 0, 123e6, time.UTC)
	s, err := NewStandard(vectorSecret)
	must(t, err)
	var tester Tester = s
	d, err := tester.EncodeTest(now)
	must(t, err)
	if string(d.Body) != `{"seq":0,"event":"TestEvent","at":"2026-11-26T07:00:00.123Z"}` || d.Through != 0 {
		t.Fatalf("body %s through %d", d.Body, d.Through)
	}
	if id := d.Header.Get("webhook-id"); id != "test-1795676400123" {
		t.Fatalf("webhook-id %q", id)
	}
	must(t, Verify(vectorSecret, d.Header, d.Body, now, DefaultTolerance))

	dc := newTestDiscord(t)
	tester = dc
	d, err = tester.EncodeTest(now)
	must(t, err)
	var msg discordMessage
	must(t, json.Unmarshal(d.Body, &msg))
	if d.Through != 0 || len(msg.Embeds) != 1 || msg.Embeds[0].Title != "Test webhooka Rynku" ||
		msg.Embeds[0].URL != "https://rynek.example.pl/" || !strings.Contains(string(d.Body), `"allowed_mentions":{"parse":[]}`) {
		t.Fatalf("the Discord test: %s", d.Body)
	}
}

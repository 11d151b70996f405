package rules

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/rynek/rynek/internal/webhook"
	"github.com/rynek/rynek/market"
)

// TestParseTheWebhooksExample: the documented webhooks: section reads as
// it says, beside the rules.
func TestParseTheWebhooksExample(t *testing.T) {
	f, err := ParseFile([]byte("fees:\n  sale-percent: 2\n"+WebhooksExample), FileName)
	if err != nil {
		t.Fatal(err)
	}
	want := []webhook.Endpoint{
		{Name: "site", URL: "https://example.com/rynek", Format: webhook.Standard, Secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
			Events: []string{"TransactionCompletedEvent", "AuctionEndedEvent"}},
		{Name: "discord", URL: "https://discord.com/api/webhooks/123456789012345678/token", Format: webhook.Discord,
			Events: []string{"TransactionCompletedEvent"}, MinPrice: 1000_00},
	}
	if !slices.EqualFunc(f.Webhooks, want, func(a, b webhook.Endpoint) bool {
		return a.Name == b.Name && a.URL == b.URL && a.Format == b.Format && a.Secret == b.Secret &&
			slices.Equal(a.Events, b.Events) && a.MinPrice == b.MinPrice
	}) {
		t.Fatalf("parsed %+v\nwant %+v", f.Webhooks, want)
	}
	if f.Rules.SaleFeeBasisPoints != 200 {
		t.Fatalf("the rules beside the webhooks: %+v", f.Rules)
	}
	if c, err := Parse([]byte(WebhooksExample), FileName); err != nil || c.SaleFeeBasisPoints != 0 {
		t.Fatalf("Parse of a file with webhooks: %+v, %v", c, err)
	}
	doc, err := os.ReadFile("../../docs/rules.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "```yaml\n"+WebhooksExample+"```") {
		t.Errorf("docs/rules.md does not hold rules.WebhooksExample verbatim in a yaml block; copy it from internal/rules/webhooks.go")
	}
}

// TestParseWebhookRefusals: each mistake is named with its line and
// column, and a secret is never repeated in an error.
func TestParseWebhookRefusals(t *testing.T) {
	const secret = "whsec_c2VjcmV0LWtleQ=="
	ok := "  - name: a\n    url: https://example.com/a\n    format: standard\n    secret: " + secret + "\n"
	for _, c := range []struct{ text, want string }{
		{"webhooks:\n  name: a\n", "r.yml:2:3: webhooks: a list of endpoints (- name: …), not a map"},
		{"webhooks:\n  - a\n", `r.yml:2:5: webhooks[1]: an endpoint holds keys (name, url, format, …), not a "a"`},
		{"webhooks:\n" + ok + ok, "r.yml:6:5: webhooks[2]: the name a is given to two endpoints"},
		{"webhooks:\n  - name: a b\n", `r.yml:2:11: webhooks[1].name: letters, digits, '-', '_' and '.', 1 to 64 of them, not "a b"`},
		{"webhooks:\n  - name: a\n    url: ftp://example.com/\n", "r.yml:3:10: webhooks[1].url: an http:// or https:// URL with a host"},
		{"webhooks:\n  - name: a\n    url: https://example.com/\n    format: slack\n", `r.yml:4:13: webhooks[1].format: standard or discord, not "slack"`},
		{"webhooks:\n  - name: a\n    url: https://example.com/\n    format: standard\n    secret: c2VjcmV0LWtleQ==\n",
			`r.yml:5:13: webhooks[1].secret: a webhook secret starts with "whsec_" (whsec_ and the base64 of the key)`},
		{"webhooks:\n  - name: a\n    url: https://example.com/\n    format: standard\n    secret: whsec_not base64!\n",
			"r.yml:5:13: webhooks[1].secret: a webhook secret is whsec_ and the base64 of the key: what follows whsec_ is not base64"},
		{"webhooks:\n  - name: a\n    url: https://example.com/\n    format: standard\n", "r.yml:2:5: webhooks[1] (a): a standard endpoint signs with a secret (secret: whsec_…)"},
		{"webhooks:\n  - name: a\n    url: https://discord.com/api/webhooks/1/t\n    format: discord\n    secret: " + secret + "\n",
			"r.yml:2:5: webhooks[1] (a): a discord endpoint has no secret (its URL's token is the secret)"},
		{"webhooks:\n" + ok + "    events: [TransactionCompleted]\n",
			`r.yml:6:14: webhooks[1].events: unknown event "TransactionCompleted" (known: ListingCreatedEvent, ListingRemovedEvent, TransactionCompletedEvent, BidPlacedEvent, AuctionEndedEvent, BuyOrderPlacedEvent, BuyOrderFilledEvent, BuyOrderClosedEvent)`},
		{"webhooks:\n" + ok + "    events: [PlayerAdded]\n", `r.yml:6:14: webhooks[1].events: unknown event "PlayerAdded" (known: ListingCreatedEvent, ListingRemovedEvent, TransactionCompletedEvent, BidPlacedEvent, AuctionEndedEvent, BuyOrderPlacedEvent, BuyOrderFilledEvent, BuyOrderClosedEvent)`},
		{"webhooks:\n" + ok + "    events: []\n", "r.yml:6:13: webhooks[1].events: an empty list delivers nothing; leave the key out for every event"},
		{"webhooks:\n" + ok + "    min-price: 10.001\n", "r.yml:6:16: webhooks[1].min-price: price 10.001 has more than 2 decimals"},
		{"webhooks:\n" + ok + "    retries: 5\n", "r.yml:6:5: unknown key webhooks[1].retries (known: events, format, min-price, name, secret, url)"},
		{"webhooks:\n  - url: https://example.com/\n", "r.yml:2:5: webhooks[1]: the name is missing (name: …)"},
		{"webhooks:\n  - name: a\n    format: discord\n", "r.yml:2:5: webhooks[1] (a): the url is missing (url: https://…)"},
	} {
		_, err := ParseFile([]byte(c.text), "r.yml")
		if err == nil || err.Error() != c.want {
			t.Errorf("%q:\n got %v\nwant %s", c.text, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "c2VjcmV0LWtleQ") {
			t.Errorf("%q: the error shows the secret: %v", c.text, err)
		}
	}
	if f, err := ParseFile([]byte("webhooks:\n"), "r.yml"); err != nil || len(f.Webhooks) != 0 {
		t.Fatalf("an empty webhooks: section: %+v, %v", f, err)
	}
}

// TestPublishedEventsAreTheMarkets: the list an error names is the
// market's published events.
func TestPublishedEventsAreTheMarkets(t *testing.T) {
	for _, name := range publishedEvents {
		if !market.EventKind(name).Published() {
			t.Errorf("%s is not published", name)
		}
	}
}

package rules

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode"

	"github.com/rynek/rynek/internal/webhook"
	"github.com/rynek/rynek/market"
	"go.yaml.in/yaml/v3"
)

// WebhooksExample is the webhooks: section of docs/rules.md (a test keeps
// the two equal and parses it). No webhook is configured by default.
const WebhooksExample = `webhooks:
  - name: site                # names it in the console, the metrics and its stored position
    url: https://example.com/rynek
    format: standard          # Standard Webhooks 1.0: one signed POST per event
    secret: whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw   # "whsec_" and the base64 of the key
    events: [TransactionCompletedEvent, AuctionEndedEvent]   # every event when left out
  - name: discord
    url: https://discord.com/api/webhooks/123456789012345678/token
    format: discord           # a Discord message: an embed per event, in Polish
    events: [TransactionCompletedEvent]
    min-price: 1000.00        # leaves out the sales, auctions' ends and fills below it
`

// maxWebhookName bounds an endpoint's name (it names a bookmark).
const maxWebhookName = 64

// webhooks reads the webhooks: section, a list of endpoints.
func (p *parser) webhooks(n *yaml.Node) []webhook.Endpoint {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil // "webhooks:" with nothing under it: none
	}
	if n.Kind != yaml.SequenceNode {
		p.fail(n, "webhooks: a list of endpoints (- name: …), not a %s", kindName(n))
		return nil
	}
	var out []webhook.Endpoint
	seen := map[string]bool{}
	for i, e := range n.Content {
		if e.Kind != yaml.MappingNode {
			p.fail(e, "webhooks[%d]: an endpoint holds keys (name, url, format, …), not a %s", i+1, kindName(e))
			return nil
		}
		ep, ok := p.webhook(i+1, e)
		if !ok {
			return nil
		}
		if seen[ep.Name] {
			p.fail(e, "webhooks[%d]: the name %s is given to two endpoints", i+1, ep.Name)
			return nil
		}
		seen[ep.Name] = true
		out = append(out, ep)
	}
	return out
}

// webhook reads one endpoint, the i-th.
func (p *parser) webhook(i int, n *yaml.Node) (webhook.Endpoint, bool) {
	var ep webhook.Endpoint
	section := fmt.Sprintf("webhooks[%d]", i)
	p.keys(section, n, map[string]func(string, *yaml.Node){
		"name": func(k string, v *yaml.Node) {
			s, ok := p.scalar(k, v)
			if ok && !webhookName(s) {
				p.fail(v, "%s: letters, digits, '-', '_' and '.', 1 to %d of them, not %q", k, maxWebhookName, s)
			}
			ep.Name = s
		},
		"url": func(k string, v *yaml.Node) {
			s, ok := p.scalar(k, v)
			if !ok {
				return
			}
			// The URL may carry a token (Discord's does): an error says
			// what is wrong with it without repeating it.
			u, err := url.Parse(s)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				p.fail(v, "%s: an http:// or https:// URL with a host", k)
			}
			ep.URL = s
		},
		"format": func(k string, v *yaml.Node) {
			s, ok := p.scalar(k, v)
			if ok && s != string(webhook.Standard) && s != string(webhook.Discord) {
				p.fail(v, "%s: standard or discord, not %q", k, s)
			}
			ep.Format = webhook.Format(s)
		},
		"secret": func(k string, v *yaml.Node) {
			s, ok := p.scalar(k, v)
			if !ok {
				return
			}
			// The error never repeats it: it is a secret.
			if _, err := webhook.ParseSecret(s); err != nil {
				p.fail(v, "%s: %v", k, err)
			}
			ep.Secret = s
		},
		"events": func(k string, v *yaml.Node) { ep.Events = p.eventNames(k, v) },
		"min-price": func(k string, v *yaml.Node) {
			ep.MinPrice = p.money(k, v, true)
		},
	})
	if p.err != nil {
		return ep, false
	}
	switch {
	case ep.Name == "":
		p.fail(n, "%s: the name is missing (name: …)", section)
	case ep.URL == "":
		p.fail(n, "%s (%s): the url is missing (url: https://…)", section, ep.Name)
	case ep.Format == "":
		p.fail(n, "%s (%s): the format is missing (format: standard or discord)", section, ep.Name)
	case ep.Format == webhook.Standard && ep.Secret == "":
		p.fail(n, "%s (%s): a standard endpoint signs with a secret (secret: whsec_…)", section, ep.Name)
	case ep.Format == webhook.Discord && ep.Secret != "":
		p.fail(n, "%s (%s): a discord endpoint has no secret (its URL's token is the secret)", section, ep.Name)
	}
	return ep, p.err == nil
}

func webhookName(s string) bool {
	return s != "" && len(s) <= maxWebhookName && strings.IndexFunc(s, func(r rune) bool {
		return r > unicode.MaxASCII || !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == '.')
	}) < 0
}

// eventNames reads a list of the names of the events the market
// publishes.
func (p *parser) eventNames(key string, v *yaml.Node) []string {
	out := p.list(key, v, "event names", func(e *yaml.Node, s string, before []string) (string, bool) {
		switch {
		case !market.EventKind(s).Published():
			p.fail(e, "%s: unknown event %q (known: %s)", key, s, strings.Join(publishedEvents, ", "))
			return "", false
		case slices.Contains(before, s):
			p.fail(e, "%s: %s is given twice", key, s)
			return "", false
		}
		return s, true
	})
	if out != nil && len(out) == 0 {
		p.fail(v, "%s: an empty list delivers nothing; leave the key out for every event", key)
	}
	return out
}

// publishedEvents are the events the market publishes, for a message.
var publishedEvents = []string{"ListingCreatedEvent", "ListingRemovedEvent", "TransactionCompletedEvent", "BidPlacedEvent",
	"AuctionEndedEvent", "BuyOrderPlacedEvent", "BuyOrderFilledEvent", "BuyOrderClosedEvent"}

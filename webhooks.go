package main

import (
	"fmt"

	"github.com/rynek/rynek/internal/webhook"
)

// startWebhooks starts delivering the market's events to the rules file's
// webhooks, telling report of an endpoint's trouble; the console and serve
// call it once the market is open, and stopWebhooks before it closes.
func (s *session) startWebhooks(report func(string)) {
	encoder := webhook.EncoderWith(webhook.DiscordOptions{Board: s.publicURL})
	s.hooks = webhook.Start(s.svc, s.webhooks, webhook.Options{Report: report, Encoder: encoder})
}

// stopWebhooks stops delivery: each endpoint's position is in the market,
// where the next start goes on from.
func (s *session) stopWebhooks() {
	if s.hooks != nil {
		s.hooks.Close()
	}
}

// webhookCount says how many webhooks a reload left configured.
func webhookCount(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return " (1 webhook)"
	}
	return fmt.Sprintf(" (%d webhooks)", n)
}

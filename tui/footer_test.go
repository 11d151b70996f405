package tui

import (
	"strings"
	"testing"
)

// footer is the screen's last line, without its padding.
func (e *testEnv) footer() string {
	lines := strings.Split(e.view(), "\n")
	return strings.TrimRight(lines[len(lines)-1], " ")
}

// TestFooterHintsInOrder: the footer offers each key beside its opposite
// and the moves from the smallest step up, as far as they fit. It read
// "enter details · o sort · c category… · pgdn page down · end/G last ·
// O sort back · C all categories · ↑/k up · ↓/j down · pgup page up".
func TestFooterHintsInOrder(t *testing.T) {
	e := newEnv(t, 200, 48)
	for _, c := range []struct{ keys, want string }{
		{"1", "enter details · o sort · O sort back · c category… · C all categories · ↑/k up · ↓/j down · pgup page up · pgdn page down · home/g first · end/G last · esc close details · ? all keys · q quit"},
		{"3", "v listings / inventory / history / notifications / bids · ↑/k up · ↓/j down · pgup page up · pgdn page down · home/g first · end/G last · ? all keys · q quit"},
		{"5", "enter details · a cycle states · f filter player/id… · U refund the purchase as admin… · * rate the purchase as its buyer… · ↑/k up · ↓/j down · pgup page up · pgdn page down · ? all keys · q quit"},
		{"?", "esc/q close · / filter · ↑/k up · ↓/j down · pgup page up · pgdn page down · home/g first · end/G last"},
	} {
		e.key(c.keys)
		if got := e.footer(); got != c.want {
			t.Errorf("after %s the footer reads\n%q, want\n%q", c.keys, got, c.want)
		}
	}
}

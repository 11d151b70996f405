package tui

import (
	"strings"
	"testing"
	"time"
)

// The status history (L) stamps its entries with the market's clock, the
// one the header shows and QA moves with ] and }, in UTC like the header:
// it stamped the machine's clock, so after } a day later read the same.
func TestStatusHistoryStampsTheMarketClock(t *testing.T) {
	e := newEnv(t, 120, 40)
	e.wall.advance(90 * time.Second) // the machine's clock: not the market's
	e.key("}")
	e.key("]")
	e.key("L")
	lines := strings.Split(e.view(), "\n")
	var got []string
	for _, l := range lines {
		if i := strings.Index(l, "│ "); i >= 0 && strings.Contains(l, "clock +") {
			got = append(got, strings.TrimSpace(l[i+len("│ "):]))
		}
	}
	if len(got) != 2 || !strings.HasPrefix(got[0], "11-02 13:00:00 ◆ clock +1h") || !strings.HasPrefix(got[1], "11-02 12:00:00 ◆ clock +1d") {
		t.Fatalf("history entries %q", got)
	}
	e.mustContain("2026-11-02 13:00:00 UTC") // the header's clock
	e.mustContain("Status history (newest first, the market's clock, UTC)")
}

package headless

import (
	"testing"
	"time"

	"github.com/rynek/rynek/internal/webhook"
)

// TestWebhookReportSaysTroubleInOneLine: the periodic report has a line
// for an endpoint in trouble and none for one that delivers.
func TestWebhookReportSaysTroubleInOneLine(t *testing.T) {
	next := time.Date(2026, 11, 26, 7, 1, 5, 0, time.Local)
	for _, c := range []struct {
		st   webhook.Status
		want string
	}{
		{webhook.Status{Name: "site", Delivered: 40, Head: 40}, ""},
		{webhook.Status{Name: "site", Delivered: 40, Lag: 12, LastError: "HTTP 503 Service Unavailable", NextRetry: next},
			"webhook site (delivering): HTTP 503 Service Unavailable; 12 events behind, delivered through 40, next try at 07:01:05"},
		{webhook.Status{Name: "discord", Delivered: 7, Lag: 3, Failing: true, LastError: "HTTP 404 Not Found, 3 times in a row: delivery waits for Resume"},
			"webhook discord (failing, waits for Resume): HTTP 404 Not Found, 3 times in a row: delivery waits for Resume; 3 events behind, delivered through 7"},
	} {
		if got := webhookReport(c.st); got != c.want {
			t.Errorf("%+v:\n got %q\nwant %q", c.st, got, c.want)
		}
	}
}

package webhook_test

import (
	"testing"
	"time"

	"github.com/rynek/rynek/internal/webhook"
)

// BenchmarkCatchUp measures how fast an endpoint that fell behind catches
// up: the 600 events of 300 changes, delivered one a request by
// the Standard encoder to a local receiver, the position stored after
// each. It reports events a second.
func BenchmarkCatchUp(b *testing.B) {
	for range b.N {
		b.StopTimer()
		m := newMarket(b)
		rc := newReceiver(b, nil)
		var report reportLines
		o := fast(&report)
		o.Encoder = nil // the real encoders
		box := webhook.Start(m.svc, []webhook.Endpoint{rc.endpoint("site")}, o)
		waitFor(b, "the bookmark", func() bool { return statusOf(b, box, "site").Head == m.svc.Version() })
		must(b, box.Pause("site"))
		m.change(300)
		events := len(m.events(0))
		b.StartTimer()
		start := time.Now()
		must(b, box.Resume("site"))
		for statusOf(b, box, "site").Delivered != m.svc.Version() {
			time.Sleep(time.Millisecond)
		}
		b.ReportMetric(float64(events)/time.Since(start).Seconds(), "events/s")
		b.StopTimer()
		box.Close()
		m.svc.Close()
	}
}

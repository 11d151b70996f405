package httpapi

import (
	"fmt"
	"math"
	"net/http"
	"sync"
	"time"

	"github.com/rynek/rynek/internal/wire"
	"github.com/rynek/rynek/market"
)

// The market's volume over time, for the website's statistics page: the
// sum of every material's price history (market.Service.PriceHistory),
// bucket by bucket. The service has no market-wide history read, so one
// answer costs a pass over the span's sales of every material sold; it is
// reused for volumeReuse, whatever the market did meanwhile, and says when
// it was read. One read per span runs at a time; the others wait for it.

// volumeReuse is how long one volume history answers for its span.
const volumeReuse = 5 * time.Second

// volumeHistories holds the newest answer of each span.
type volumeHistories struct {
	mu   sync.Mutex // held through a read: the next request waits and reuses it
	kept map[string]keptVolume
}

type keptVolume struct {
	body    wire.VolumeHistory
	read    time.Time // by the real clock, which volumeReuse counts in
	version uint64
}

func (s *Server) volumeHistory(r *http.Request) (reader, error) {
	p, err := parseParams(r.URL.RawQuery, "span")
	if err != nil {
		return nil, err
	}
	span := p.get("span")
	if span == "" {
		span = "7d"
	}
	sp, ok := spans[span]
	if !ok {
		return nil, badParameter("span", fmt.Sprintf("span must be 24h, 7d or 30d, got %q", clip(span)))
	}
	return func() (any, uint64, error) {
		v := &s.volumes
		v.mu.Lock()
		defer v.mu.Unlock()
		if k, ok := v.kept[span]; ok && time.Since(k.read) < volumeReuse {
			return k.body, k.version, nil
		}
		version := s.svc.Version()
		st, err := s.svc.Stats(math.MaxInt32) // every material with sales
		if err != nil {
			return nil, 0, err
		}
		sum, err := s.sumHistories(st.TopItems, sp.span, sp.width)
		if err != nil {
			return nil, 0, err
		}
		out := wire.NewVolumeHistory(span, sp.width, sum, version)
		if v.kept == nil {
			v.kept = map[string]keptVolume{}
		}
		v.kept[span] = keptVolume{body: out, read: time.Now(), version: version}
		return out, version, nil
	}, nil
}

// sumHistories adds up the price histories of items bucket by bucket. A
// bucket boundary passing between two items' reads would misalign them:
// then the sum is made again.
func (s *Server) sumHistories(items []market.ItemRank, span, width time.Duration) ([]market.PricePoint, error) {
	for {
		ph, err := s.svc.PriceHistory("STONE", span, width) // the buckets, whatever sold
		if err != nil {
			return nil, err
		}
		sum := make([]market.PricePoint, len(ph.Points))
		for i, pt := range ph.Points {
			sum[i] = market.PricePoint{Start: pt.Start}
		}
		aligned := true
		for _, it := range items {
			ph, err := s.svc.PriceHistory(it.Material, span, width)
			if err != nil {
				return nil, err
			}
			if len(ph.Points) != len(sum) || !ph.Points[0].Start.Equal(sum[0].Start) {
				aligned = false
				break
			}
			for i, pt := range ph.Points {
				sum[i].Sales += pt.Sales
				sum[i].Amount += pt.Amount
				sum[i].Volume += pt.Volume
			}
		}
		if aligned {
			return sum, nil
		}
	}
}

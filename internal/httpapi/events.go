package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/rynek/rynek/internal/wire"
	"github.com/rynek/rynek/market"
)

// The event stream.
//
// One hub goroutine follows the service's event log (EventsSince, woken by
// a listener that only signals) and encodes each event once into a ring of
// frames. Every stream reads frames from the ring, so a thousand clients
// cost the market one reader, and the listener on the main thread never
// waits for anyone.
//
// A client resuming from an older seq (Last-Event-ID, ?since) first catches
// up from the service's durable log, across restarts; one asking for a seq
// the log no longer keeps gets `event: reset`. A live client that falls
// further behind than the ring holds (it reads slower than the market
// changes) is dropped with a reset too: its buffer is bounded, the market is
// never slowed. Either way the client reads the market again and follows
// the stream from that read's version.

// frame is one event, encoded as the stream sends it.
type frame struct {
	seq  uint64
	text []byte
}

// hubBatch is how many log events the hub reads at a time.
const hubBatch = 1000

// streamBatch is how many frames a stream takes from the ring at a time.
const streamBatch = 256

type hub struct {
	svc  *market.Service
	size int // frames the ring keeps

	mu      sync.RWMutex
	frames  []frame       // oldest first
	from    uint64        // the ring holds every event with from < seq <= through
	through uint64        // the log has been read up to here
	changed chan struct{} // closed when through advances

	wake  chan struct{}
	stop  chan struct{}
	done  chan struct{}
	unsub func()
	open  *streamCount
	fates *fates // told every event read
	start uint64 // the version the hub read on from
}

func newHub(svc *market.Service, size int, open *streamCount, fates *fates) *hub {
	v := svc.Version()
	h := &hub{svc: svc, size: size, open: open, fates: fates, start: v, from: v, through: v, changed: make(chan struct{}),
		wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	// The listener runs on the main thread: it only signals.
	h.unsub = svc.Subscribe(func(market.Event) {
		select {
		case h.wake <- struct{}{}:
		default:
		}
	})
	go h.run()
	return h
}

func (h *hub) close() {
	select {
	case <-h.stop:
		return
	default:
	}
	h.unsub()
	close(h.stop)
	<-h.done
}

func (h *hub) streams() int { return h.open.total() }

// hubPoll is the hub's safety net: it reads the log this often even without
// a signal (a change applied while the service was not ready).
const hubPoll = time.Second

// hubGather is the least time between two reads of the log. A change
// alone reaches the streams at once; in a burst, what arrives within
// hubGather of the last read waits for the next, so that every stream is
// woken once for all of it rather than once an event: a burst of ten
// thousand events then costs each client tens of writes, not ten thousand.
const hubGather = 20 * time.Millisecond

func (h *hub) run() {
	defer close(h.done)
	poll := time.NewTicker(hubPoll)
	defer poll.Stop()
	for {
		read := time.Now()
		h.pull()
		select {
		case <-h.stop:
			return
		case <-h.wake:
		case <-poll.C:
		}
		if wait := hubGather - time.Since(read); wait > 0 {
			select {
			case <-h.stop:
				return
			case <-time.After(wait):
			}
		}
	}
}

// pull reads the log up to its head into the ring.
func (h *hub) pull() {
	for {
		h.mu.RLock()
		after := h.through
		h.mu.RUnlock()
		page, err := h.svc.EventsSince(after, hubBatch)
		if errors.Is(err, market.ErrEventsTrimmed) {
			// Only a hub stalled for the whole retention gets here; start
			// over from the head: streams behind it are reset.
			v := h.svc.Version()
			h.mu.Lock()
			h.frames, h.from, h.through = nil, v, v
			h.mu.Unlock()
			return
		}
		if err != nil {
			return // not ready: the next wake or poll tries again
		}
		fresh := make([]frame, 0, len(page.Events))
		for _, e := range page.Events {
			fresh = append(fresh, encodeFrame(e))
			h.fates.see(e)
		}
		h.mu.Lock()
		h.frames = append(h.frames, fresh...)
		if n := len(h.frames); n > h.size && n > len(fresh) {
			// Drop in halves (amortized O(1) a frame), but never what
			// this read brought: a stream that had read everything
			// before it is not behind, however large the read.
			drop := min(n-h.size/2, n-len(fresh))
			h.from = h.frames[drop-1].seq
			h.frames = slices.Clone(h.frames[drop:])
		}
		h.through = page.Through
		close(h.changed)
		h.changed = make(chan struct{})
		h.mu.Unlock()
		if page.Through >= page.Head {
			return
		}
	}
}

// encodeFrame is an event as the stream sends it: its seq as the id, its
// contract name as the event type, its wire form as the data.
func encodeFrame(e market.Event) frame {
	data, err := json.Marshal(wire.NewEvent(e))
	if err != nil {
		data = []byte(`{}`) // wire shapes always marshal
	}
	text := fmt.Appendf(nil, "id: %d\nevent: %s\ndata: %s\n\n", e.Seq(), e.EventName(), data)
	return frame{seq: e.Seq(), text: text}
}

// next returns the frames after pos (at most streamBatch) and the position
// after them. behind is true when pos is older than the ring holds;
// changed is closed when more arrives.
func (h *hub) next(pos uint64) (frames []frame, newPos uint64, behind bool, changed <-chan struct{}) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if pos < h.from {
		return nil, pos, true, h.changed
	}
	i, _ := slices.BinarySearchFunc(h.frames, pos+1, func(f frame, seq uint64) int {
		switch {
		case f.seq < seq:
			return -1
		case f.seq > seq:
			return 1
		}
		return 0
	})
	end := min(len(h.frames), i+streamBatch)
	frames = h.frames[i:end]
	newPos = max(pos, h.through)
	if end < len(h.frames) {
		newPos = frames[len(frames)-1].seq
	}
	return frames, newPos, false, h.changed
}

// Reset reasons, the data of an `event: reset`.
const (
	ResetTrimmed = "trimmed" // the asked seq is older than the log keeps
	ResetAhead   = "ahead"   // the asked seq is newer than the market's (another market, a restored backup)
	ResetSlow    = "slow"    // the client fell further behind than its buffer
)

// Reset is the data of an `event: reset`: read the market again, then
// follow the stream from the version of that read.
type Reset struct {
	Reason  string `json:"reason"`
	Version uint64 `json:"version"` // the market's version now
}

// resumeFrom reads where a stream starts: Last-Event-ID (an EventSource's
// own reconnect), else ?since=, else the market's version now.
func (s *Server) resumeFrom(r *http.Request) (uint64, error) {
	p, err := parseParams(r.URL.RawQuery, "since", "access_token")
	if err != nil {
		return 0, err
	}
	name, raw := "Last-Event-ID", r.Header.Get("Last-Event-ID")
	if raw == "" {
		name, raw = "since", p.get("since")
	}
	if raw == "" {
		return s.svc.Version(), nil
	}
	v, err := strconv.ParseUint(raw, 10, 64)
	if err != nil || strconv.FormatUint(v, 10) != raw {
		return 0, badParameter(name, fmt.Sprintf("%s must be an event id (a version, a whole number), got %q", name, clip(raw)))
	}
	return v, nil
}

// catchUpBatch is how many events a resuming stream reads from the log at a
// time before it reaches the ring.
const catchUpBatch = 500

func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	pos, err := s.resumeFrom(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	if _, err := s.svc.GetActiveListingsCount(); err != nil {
		writeError(w, r, err) // not ready: 503
		return
	}
	client := clientIP(r)
	if err := s.hub.open.enter(client); err != nil {
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterStreams))
		writeError(w, r, err)
		return
	}
	defer s.hub.open.leave(client)
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	write := func(b []byte) bool {
		rc.SetWriteDeadline(time.Now().Add(s.opts.WriteTimeout))
		_, err := w.Write(b)
		return err == nil
	}
	flush := func() bool {
		rc.SetWriteDeadline(time.Now().Add(s.opts.WriteTimeout))
		return rc.Flush() == nil
	}
	reset := func(reason string) {
		data, _ := json.Marshal(Reset{Reason: reason, Version: s.svc.Version()})
		write(fmt.Appendf(nil, "event: reset\ndata: %s\n\n", data))
		flush()
	}
	if !write([]byte("retry: 3000\n\n")) || !flush() {
		return
	}
	if pos > s.svc.Version() {
		reset(ResetAhead)
		return
	}
	heartbeat := time.NewTicker(s.opts.Heartbeat)
	defer heartbeat.Stop()
	live := false
	var batch []byte // the frames of one write, reused
	for {
		frames, newPos, behind, changed := s.hub.next(pos)
		if behind {
			if live {
				reset(ResetSlow)
				return
			}
			// Catching up from the durable log, frames encoded here.
			page, err := s.svc.EventsSince(pos, catchUpBatch)
			switch {
			case errors.Is(err, market.ErrEventsTrimmed):
				reset(ResetTrimmed)
				return
			case err != nil:
				return // not ready any more, or the store failed: the client reconnects
			}
			batch = batch[:0]
			for _, e := range page.Events {
				batch = append(batch, encodeFrame(e).text...)
			}
			if !write(batch) || !flush() {
				return
			}
			pos = page.Through
			continue
		}
		live = true
		if len(frames) > 0 {
			// One write a batch: a thousand streams then cost the
			// machine a system call per batch each, not one a frame.
			batch = batch[:0]
			for _, f := range frames {
				batch = append(batch, f.text...)
			}
			if !write(batch) || !flush() {
				return
			}
		}
		pos = newPos
		if len(frames) == streamBatch {
			continue
		}
		select {
		case <-changed:
		case <-heartbeat.C:
			if !write([]byte(": ping\n\n")) || !flush() {
				return
			}
		case <-r.Context().Done():
			return
		case <-s.hub.stop:
			return
		}
	}
}

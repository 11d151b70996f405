// Package headless runs the market without a terminal (`rynek serve`): the
// game server's main-thread loop, which performs the mutations (the traffic
// bots'), the expiry timer, the event log's retention and recovery after a
// store failure, a fixed number of ticks a second.
package headless

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	"github.com/rynek/rynek/internal/priority"
	"github.com/rynek/rynek/internal/traffic"
	"github.com/rynek/rynek/internal/webhook"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/playertext"
)

// TicksPerSecond is the loop's rate: a Minecraft server's tick.
const TicksPerSecond = 20

// Options configure the loop.
type Options struct {
	// BotsRate is the traffic bots' actions a second; 0 = no bots.
	BotsRate float64
	// Seed seeds the bots' choices.
	Seed uint64
	// Tick is the loop's period (default 1/TicksPerSecond s).
	Tick time.Duration
	// Report, when set, is told about notable things (bots recruited,
	// recovery) as they happen, and every ReportEvery (default a minute)
	// what the bots did meanwhile and the ticks' work.
	Report      func(string)
	ReportEvery time.Duration
	// Reload, when it receives, runs ReloadRules on the main loop (SIGHUP
	// in rynek serve), whose result goes to Report.
	Reload      <-chan os.Signal
	ReloadRules func() (string, error)
	// Observe, when set, is told each tick's work as it ends, on the main
	// thread: its wall time (what the percentiles count) and the main
	// thread's CPU time in it, which a busy machine's other processes do
	// not inflate (0 where the system cannot tell a thread's CPU time).
	Observe func(wall, cpu time.Duration)
	// Webhooks, when set, adds to every periodic report a line for each
	// endpoint in trouble (failing, or its last try failed).
	Webhooks webhook.Control
	// Realtime puts the main thread in the real-time class while the loop
	// runs (package priority), so that other threads never make a tick
	// wait for a processor; Report says whether the system allowed it.
	Realtime bool
}

// Summary is what a run did and how long its ticks took: the work of a
// tick, not the sleep between ticks.
type Summary struct {
	Ticks int
	// Work is the ticks' work over the run, as far back as the service's
	// record of it goes (market.TickWorkSince).
	Work market.TickWork
	// Bots is what the traffic bots did, their refusals by code.
	Bots traffic.Result
	// storeAway is set while following a shared market fails, so that the
	// failure and the recovery are each reported once.
	storeAway bool
}

func (s Summary) String() string {
	out := fmt.Sprintf("%d ticks, tick work %s", s.Ticks, s.Work)
	if b := s.Bots; b.OK+b.Refused > 0 {
		out += fmt.Sprintf("; bots %d ok, %d refused", b.OK, b.Refused)
		if b.Refused > 0 {
			out += " (" + b.RefusalText() + ")"
		}
	}
	return out
}

// Run runs the loop until ctx ends. It must be called on the service's main
// thread (the goroutine that bound it and enabled the service).
func Run(ctx context.Context, svc *market.Service, o Options) (Summary, error) {
	if !svc.IsMainThread() {
		return Summary{}, market.ErrNotMainThread
	}
	if o.Tick <= 0 {
		o.Tick = time.Second / TicksPerSecond
	}
	report := o.Report
	if report == nil {
		report = func(string) {}
	}
	if o.ReportEvery <= 0 {
		o.ReportEvery = time.Minute
	}
	// The loop's samples in a CPU profile carry loop=main: what the
	// market's main thread spends its ticks on, apart from the readers.
	pprof.SetGoroutineLabels(pprof.WithLabels(ctx, pprof.Labels("loop", "main")))
	defer pprof.SetGoroutineLabels(context.Background())
	if o.Realtime {
		if err := priority.Raise(); err != nil {
			report(fmt.Sprintf("the main thread keeps its normal priority, so other threads may make a tick wait (%v: %s)", err, priority.Hint))
		} else {
			report("the main thread runs at real-time priority: no other thread makes a tick wait")
			defer priority.Lower()
		}
	}
	var sum Summary
	var players []market.Player
	gen := traffic.New(o.Seed)
	if o.BotsRate > 0 {
		ps, err := svc.Players()
		if err != nil {
			return sum, err
		}
		if len(ps) < traffic.MinPlayers {
			added, err := traffic.Recruit(svc)
			if err != nil {
				return sum, fmt.Errorf("the bots could not add their players: %w", err)
			}
			report(fmt.Sprintf("the market had fewer than %d players; the bots added %d", traffic.MinPlayers, len(added)))
			ps = append(ps, added...)
		}
		players = ps
	}
	// The bots act off the main thread; the loop makes their changes.
	crowd := gen.Crowd(svc, players)
	defer crowd.Close()
	var store storeWatch
	ticker := time.NewTicker(o.Tick)
	defer ticker.Stop()
	last := time.Now()
	started := last
	// What the bots did since the last report of it.
	var window traffic.Result
	reported := last
	for {
		select {
		case <-ctx.Done():
			store.check(svc.StoreHealth(), time.Now(), report) // the last word on it
			sum.Work = svc.TickWorkSince(started)
			return sum, nil
		case <-svc.Followed():
			// Another instance's change, applied now rather than at
			// the next tick.
			follow(svc, &sum, report)
		case <-o.Reload:
			if o.ReloadRules != nil {
				msg, err := o.ReloadRules()
				if err != nil {
					msg = "the rules were not reloaded: " + err.Error()
				}
				report(msg)
			}
		case now := <-ticker.C:
			if ctx.Err() != nil {
				// Told to end while a tick was due: the select picks
				// either, and a loop told to end ticks no more.
				continue
			}
			elapsed := now.Sub(last)
			var r traffic.Result
			wall, cpu, err := svc.MeasureTick(func() {
				// The market's lock is held through the tick, so that
				// the main thread waits for its readers once
				// (Service.Hold): each change, each timer takes it
				// several times. A tick that did not have it in time
				// leaves its changes, and its share of the bots' turns,
				// to the next.
				if held, _ := svc.Hold(func() { r = tick(svc, crowd, o.BotsRate, elapsed, &sum, report) }); held {
					last = now
				}
				store.check(svc.StoreHealth(), time.Now(), report)
			})
			if err != nil {
				return sum, fmt.Errorf("the main loop left the main thread: %w", err)
			}
			sum.Bots.Add(r)
			window.Add(r)
			sum.Ticks++
			if now.Sub(reported) >= o.ReportEvery {
				if len(players) > 0 {
					report(botsReport(svc, gen, window, now.Sub(reported)))
				}
				report(tickReport(svc.TickWorkSince(reported), now.Sub(reported)))
				if o.Webhooks != nil {
					for _, st := range o.Webhooks.Status() {
						if line := webhookReport(st); line != "" {
							report(line)
						}
					}
				}
				// The next report counts the ticks that end from here
				// on: this one, and the one before it, which may have
				// ended after this tick was due, are in this report.
				window, reported = traffic.Result{}, time.Now()
			}
			if o.Observe != nil {
				o.Observe(wall, cpu)
			}
		}
	}
}

// changesBy is the main thread's time in a tick after which the players'
// changes wait for the next tick. The outcomes, the timer and the changes
// each stop after about half a millisecond of their own; when the timer
// settled a burst of auctions and the bots then spent theirs, a tick took
// 1.1-1.5 ms (BenchmarkServerTick, its parts timed apart by a probe: the
// timer 490-790 µs in four ticks in a row).
const changesBy = 700 * time.Microsecond

// tick is one turn of the main thread; it returns what the bots did.
func tick(svc *market.Service, crowd *traffic.Crowd, rate float64, elapsed time.Duration, sum *Summary, report func(string)) traffic.Result {
	if !svc.IsReady() {
		return traffic.Result{}
	}
	start := time.Now()
	// The outcomes of this instance's commits, then what the other
	// instances of a shared market did.
	r := settle(svc)
	follow(svc, sum, report)
	// The timer next: after a long pause the listings that expired
	// meanwhile are swept (a batch a tick) before the bots search among them.
	// A store failure is reported once by storeWatch, not by each timer
	// that meets it every tick.
	// While the store cannot be reached the timers wait: each would only be
	// refused (and counted as a refused change).
	away := svc.StoreHealth().Unreachable
	if !away {
		if _, _, err := svc.SweepExpired(); err != nil && !errors.Is(err, market.ErrStore) {
			report("expiry timer: " + err.Error())
		}
	}
	// The changes the bots' turns asked for, and new turns: never more
	// than a second of traffic at once, even after a stall.
	r.Add(crowd.Step(rate, min(elapsed, time.Second), start.Add(changesBy)))
	// A store failure may have left a purchase unfinished. While the store
	// fails, recovery fails with it: the store's failure is reported
	// (storeWatch), not each try.
	if n, err := svc.RecoverInterrupted(); err != nil && !errors.Is(err, market.ErrStore) {
		report("recovery after a store failure: " + err.Error())
	} else if n > 0 {
		report(fmt.Sprintf("finished %d purchases a store failure had interrupted", n))
	}
	if !away {
		if _, err := svc.TrimEventLog(); err != nil && !errors.Is(err, market.ErrStore) {
			report("event log retention: " + err.Error())
		}
	}
	return r
}

// tickReport says how long the main thread's ticks took over the last d:
// "tick work in the last 1m0s: 1200 ticks, p50 2.1ms, p99 6.49ms, max
// 42.6ms (CPU p50 1.8ms, p99 5.2ms, max 9ms)".
func tickReport(w market.TickWork, d time.Duration) string {
	return fmt.Sprintf("tick work in the last %s: %d ticks, %s", roundReport(d), w.Ticks, w)
}

// roundReport rounds a report's span: to the second from a second on.
func roundReport(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// botsReport says what the bots did over the last d: their turns by
// action, their refusals by code, and where the active listings are
// against what the economy holds them around.
func botsReport(svc *market.Service, gen *traffic.Generator, r traffic.Result, d time.Duration) string {
	actions := 0
	for _, n := range r.Actions {
		actions += n
	}
	text := fmt.Sprintf("bots in the last %s: %d actions (%s); %d refused", roundReport(d), actions, r.ActionText(), r.Refused)
	if r.Refused > 0 {
		// The refusal may name a player, whose name may hold anything.
		text += " (" + r.RefusalText() + "; the last: " + playertext.Sanitize(r.LastErr.Error()) + ")"
	}
	if n, err := svc.GetActiveListingsCount(); err == nil {
		text += fmt.Sprintf("; %d active listings, the economy holds %d", n, gen.Target())
	}
	return text
}

// settle takes the outcomes of the commits behind the tick. A refusal
// undoes what the bots did (only they change the market here): the bots'
// report counts it by its code, and storeWatch says why the store fails.
func settle(svc *market.Service) traffic.Result {
	var r traffic.Result
	r.Undo(svc.Settle())
	return r
}

// follow applies what the other instances of a shared market did, and
// reports a failure and the recovery once each.
func follow(svc *market.Service, sum *Summary, report func(string)) {
	if _, err := svc.Follow(); (err != nil) != sum.storeAway {
		sum.storeAway = err != nil
		if err != nil {
			report("following the other instances: " + err.Error())
		} else {
			report("following the other instances again")
		}
	}
}

// webhookReport is one line on an endpoint in trouble, "" for one that
// delivers.
func webhookReport(st webhook.Status) string {
	if !st.Failing && st.LastError == "" {
		return ""
	}
	state := "delivering"
	switch {
	case st.Failing:
		state = "failing, waits for Resume"
	case st.Paused:
		state = "paused"
	}
	line := fmt.Sprintf("webhook %s (%s): %s; %d events behind, delivered through %d", st.Name, state, st.LastError, st.Lag, st.Delivered)
	if !st.NextRetry.IsZero() {
		line += ", next try at " + st.NextRetry.Format(time.TimeOnly)
	}
	return line
}

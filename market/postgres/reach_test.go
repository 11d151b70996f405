package postgres_test

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/rynek/rynek/internal/pgtest"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/postgres"
)

// sellBatch is a commit of one listing and its log entry.
func sellBatch(id int64) *market.Batch {
	return &market.Batch{
		Ops:    []market.Op{{Kind: market.OpAddListing, Listing: &market.ListingRow{ID: id, Rec: []byte{byte(id)}}}},
		Events: []market.EventRow{{Kind: market.KindListingCreated, At: id, Body: []byte{byte(id)}}},
	}
}

// TestCommitOnASilentLinkGivesUp: a link that swallows the server's
// answers (a network dropping packets says nothing) holds a commit for
// about a second, not until TCP gives up; the commit is then in doubt, and
// every commit is refused at once until Reach has reached the server and
// learnt that it was saved after all. Then commits go on, the log without a
// gap.
func TestCommitOnASilentLinkGivesUp(t *testing.T) {
	dsn := pgtest.Database(t)
	proxy, linked := pgtest.NewProxy(t, dsn)
	st, err := postgres.Open(linked, postgres.Options{})
	mustOK(t, err)
	defer st.Close()
	mustOK(t, st.Commit(sellBatch(1)))

	proxy.Freeze()
	start := time.Now()
	err = st.Commit(sellBatch(2))
	held := time.Since(start)
	if !errors.Is(err, market.ErrInDoubt) || !errors.Is(err, market.ErrUnreachable) {
		t.Fatalf("a commit on a silent link: %v, want one in doubt", err)
	}
	if held > 2*time.Second {
		t.Fatalf("a commit on a silent link held its caller %s", held.Round(time.Millisecond))
	}
	start = time.Now()
	if err := st.Commit(sellBatch(3)); !errors.Is(err, market.ErrInDoubt) || time.Since(start) > 50*time.Millisecond {
		t.Fatalf("a commit while one is in doubt: %v after %s, want refused at once", err, time.Since(start))
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	if _, err := st.Reach(ctx); !errors.Is(err, market.ErrUnreachable) {
		t.Fatalf("reach on a silent link: %v, want unreachable", err)
	}
	cancel()

	proxy.Restore()
	restored := time.Now()
	var landed market.Landed
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		landed, err = st.Reach(ctx)
		cancel()
		if err == nil || time.Now().After(deadline) {
			break
		}
	}
	reachedAfter := time.Since(restored)
	mustOK(t, err)
	if landed != (market.Landed{After: 1, Entries: 1}) {
		t.Fatalf("landed %+v, want the commit in doubt (entry 2)", landed)
	}
	b := sellBatch(3)
	mustOK(t, st.Commit(b))
	if b.Events[0].Seq != 3 {
		t.Fatalf("the commit after the link came back got seq %d, want 3", b.Events[0].Seq)
	}
	if n := count(t, dsn, "SELECT count(*) FROM listings"); n != 3 {
		t.Fatalf("%d listings, want 3", n)
	}
	t.Logf("a commit on a silent link held its caller %s; reached %s after the link came back", held.Round(time.Millisecond), reachedAfter.Round(time.Millisecond))
}

// TestCommitInDoubtThatDidNotLand: the link cut before a commit reached the
// server leaves nothing to learn but that it was not saved; Reach says so
// and the next commit goes on from the same seq.
func TestCommitInDoubtThatDidNotLand(t *testing.T) {
	dsn := pgtest.Database(t)
	proxy, linked := pgtest.NewProxy(t, dsn)
	st, err := postgres.Open(linked, postgres.Options{})
	mustOK(t, err)
	defer st.Close()
	mustOK(t, st.Commit(sellBatch(1)))
	proxy.Cut()
	start := time.Now()
	if err := st.Commit(sellBatch(2)); !errors.Is(err, market.ErrUnreachable) {
		t.Fatalf("a commit on a cut link: %v, want unreachable", err)
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Fatalf("a commit on a cut link held its caller %s", d.Round(time.Millisecond))
	}
	proxy.Restore()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	landed, err := st.Reach(ctx)
	mustOK(t, err)
	if landed.Entries != 0 {
		t.Fatalf("landed %+v, want nothing", landed)
	}
	b := sellBatch(2)
	mustOK(t, st.Commit(b))
	if b.Events[0].Seq != 2 {
		t.Fatalf("the commit after the link came back got seq %d, want 2", b.Events[0].Seq)
	}
}

// TestASilentLinkLetsGoOfTheName: on a link that loses every packet, a
// commit gives up after about a second and its connection is closed then,
// not when pgx's attempt to cancel it on the server gives up (15 s later):
// the server ends the session, and with it the instance's name, as soon as
// it hears, so that once the link is back the store is reached at once.
func TestASilentLinkLetsGoOfTheName(t *testing.T) {
	dsn := pgtest.Database(t)
	proxy, linked := pgtest.NewProxy(t, dsn)
	st, err := postgres.Open(linked, postgres.Options{})
	mustOK(t, err)
	defer st.Close()
	mustOK(t, st.Commit(sellBatch(1)))
	proxy.Silence()
	if err := st.Commit(sellBatch(2)); !errors.Is(err, market.ErrInDoubt) {
		t.Fatalf("a commit on a silent link: %v, want one in doubt", err)
	}
	time.Sleep(2 * time.Second) // the link stays silent a while
	proxy.Restore()
	restored := time.Now()
	var landed market.Landed
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		landed, err = st.Reach(ctx)
		cancel()
		if err == nil || time.Since(restored) > 10*time.Second {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	mustOK(t, err)
	took := time.Since(restored)
	if took > 2*time.Second {
		t.Fatalf("reached %s after the link came back, want at once", took.Round(time.Millisecond))
	}
	if landed.Entries != 0 {
		t.Fatalf("landed %+v: nothing reached the server", landed)
	}
	t.Logf("reached %s after the link came back", took.Round(time.Millisecond))
}

// TestATrimOnASilentLinkGivesUp: the log's retention, a batch on the main
// thread each tick, waits for a silent link no longer than a commit, and
// says the link failed.
func TestATrimOnASilentLinkGivesUp(t *testing.T) {
	dsn := pgtest.Database(t)
	proxy, linked := pgtest.NewProxy(t, dsn)
	st, err := postgres.Open(linked, postgres.Options{})
	mustOK(t, err)
	defer st.Close()
	for id := range int64(3) {
		mustOK(t, st.Commit(sellBatch(id+1)))
	}
	proxy.Silence()
	start := time.Now()
	_, err = st.TrimEvents(market.EventTrim{Below: 3, Limit: 10, OlderThan: math.MinInt64})
	if held := time.Since(start); !errors.Is(err, market.ErrUnreachable) || held > 2*time.Second {
		t.Fatalf("a trim on a silent link: %v after %s, want unreachable within about a second", err, held.Round(time.Millisecond))
	}
}

package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/rynek/rynek/market"
)

// The link to the server (market.Reacher). When it breaks the store
// answers at once instead of waiting for it: a commit sent on a connection
// that breaks before its answer comes is in doubt (only the server knows
// whether it was saved), and the store refuses every commit until Reach,
// which the service's probe calls off the main thread, has connected again
// and learnt the outcome from the log: this instance's own entries past
// the newest it knew can only be that commit's (the name's lock keeps every
// other writer of the name away, and is not had again until the server has
// ended the broken session, committing or rolling back its transaction).
// A commit in doubt that landed is reported to the service (market.Landed),
// which reads its rows back.
//
// The main thread waits for the link at most commitTimeout for a commit's
// answer (a link that drops packets silently sends no error) and
// reconnectTimeout for one attempt to connect again when a broken
// connection is found; while the store is known to be away, not at all.

// commitTimeout bounds how long a commit waits for the server's answer.
// A commit takes a round trip and the server's work on a few rows: a
// millisecond on a local network. One that has not answered in this long
// is on a dead link, and its connection is given up (in doubt).
const commitTimeout = time.Second

// reconnectTimeout bounds a reconnection attempt made on the main thread.
const reconnectTimeout = 250 * time.Millisecond

// readTimeout bounds a follower's read (a chunk of the log, the rows it
// names): on a dead link it fails, and the follower tries again, instead of
// waiting until TCP gives up.
const readTimeout = 5 * time.Second

// doubt is a commit whose outcome a broken link left unknown.
type doubt struct {
	entries int    // its log entries: 0 when it wrote none
	after   uint64 // the newest seq of this instance's entries before it
}

// linkFault is an error of the link: its text says what happened, and it
// matches its kind (market.ErrUnreachable or market.ErrInDoubt) and its
// cause.
type linkFault struct {
	text        string
	kind, cause error
}

func (e *linkFault) Error() string { return e.text }
func (e *linkFault) Unwrap() []error {
	if e.cause == nil {
		return []error{e.kind}
	}
	return []error{e.kind, e.cause}
}

// unreachable wraps an error of the link for a commit.
func unreachable(err error) error {
	return &linkFault{text: fmt.Sprintf("the PostgreSQL server cannot be reached (%v); the change was not saved", oneLine(err)),
		kind: market.ErrUnreachable, cause: err}
}

// linkError marks err as the link's when the link failed it (the server
// away, the connection broken or timed out), for the follower's reads.
func linkError(err error) error {
	var pgErr *pgconn.PgError
	var netErr net.Error
	var connectErr *pgconn.ConnectError
	switch {
	case err == nil, errors.Is(err, market.ErrUnreachable):
		return err
	case errors.As(err, &pgErr):
		// Only the server's "going away" classes: 08 (connection
		// exception) and 57P (shut down, crashed, not yet accepting).
		if !strings.HasPrefix(pgErr.Code, "08") && !strings.HasPrefix(pgErr.Code, "57P") {
			return err
		}
	case errors.As(err, &connectErr), errors.As(err, &netErr), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, context.DeadlineExceeded), pgconn.Timeout(err), pgconn.SafeToRetry(err):
	default:
		return err
	}
	return &linkFault{text: fmt.Sprintf("the PostgreSQL server cannot be reached (%v)", oneLine(err)), kind: market.ErrUnreachable, cause: err}
}

// oneLine joins the lines of err's text (pgx lists each address it tried
// on a line of its own), for one-line messages.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// inDoubt records that the commit in flight on a broken connection, with n
// log entries, has an unknown outcome, and returns the error that says so.
// mu must be held.
func (s *Store) inDoubt(n int, err error) error {
	s.doubt = &doubt{entries: n, after: s.lastSeq}
	return &linkFault{text: fmt.Sprintf("the link to PostgreSQL broke before the server said whether the change was saved (%v); "+
		"the market shows the outcome once the server answers", oneLine(err)), kind: market.ErrInDoubt, cause: err}
}

// Reach connects to the server again, when the writer's connection is
// broken or in doubt, and learns the outcome of the commit in doubt. It
// holds mu only while it changes the store, never while it waits for the
// server.
func (s *Store) Reach(ctx context.Context) (market.Landed, error) {
	s.mu.Lock()
	if err := s.writerFree(); err != nil {
		s.mu.Unlock()
		return market.Landed{}, err
	}
	d := s.doubt
	if d == nil && s.conn != nil && !s.conn.IsClosed() && !s.suspect.Load() && s.conn.Ping(ctx) == nil {
		// The writer's connection works (the follower's read failed on
		// its own): reached.
		s.mu.Unlock()
		return market.Landed{}, nil
	}
	if s.conn != nil {
		// Broken, or about to be replaced: its session (and with it the
		// name's lock) ends on the server once the server sees it go.
		drop(s.conn)
	}
	s.mu.Unlock()

	conn, err := s.dial(ctx)
	if err != nil {
		return market.Landed{}, unreachable(err)
	}
	var landed market.Landed
	if d != nil {
		if landed, err = s.outcome(ctx, conn, d); err != nil {
			conn.Close(ctx)
			if errors.Is(err, errLost) {
				s.mu.Lock()
				s.lost = err
				s.mu.Unlock()
				return market.Landed{}, err
			}
			return market.Landed{}, unreachable(err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writerFree(); err != nil {
		conn.Close(ctx)
		return market.Landed{}, err
	}
	if s.conn != nil {
		s.conn.Close(ctx)
	}
	s.conn = conn
	s.suspect.Store(false)
	if s.doubt == d {
		s.doubt = nil
	}
	if landed.Entries > 0 {
		s.lastSeq = max(s.lastSeq, landed.After+uint64(landed.Entries))
	}
	return landed, nil
}

// drop closes conn's socket at once. pgx, when a wait for the server
// times out, closes a connection only after it has tried to send the
// server a cancel request on another one, for up to 15 s on a link that
// drops packets; meanwhile the server keeps the session, and the writer's
// holds the instance's name, which a new connection must take. Closed
// here, the server ends it as soon as it hears (at once through a proxy
// that closed its side, when a dropped link heals otherwise).
func drop(conn *pgx.Conn) {
	conn.PgConn().Conn().Close()
	conn.Close(context.Background()) // marks it closed; the socket is gone already
}

// errLost marks an outcome that cannot be learnt.
var errLost = errors.New("the PostgreSQL connection broke during a commit")

// outcome looks on conn for this instance's entries past d.after: none
// (not saved) or all of the commit's (saved). A commit without entries
// cannot be told apart; it only ever holds what may be written twice or
// not at all (the opening account, written once; the next listing id,
// a conditional write; the delivery mark, raised to the greater), so it
// counts as not saved.
func (s *Store) outcome(ctx context.Context, conn *pgx.Conn, d *doubt) (market.Landed, error) {
	if d.entries == 0 {
		return market.Landed{}, nil
	}
	var found, newest int64
	if err := conn.QueryRow(ctx, "SELECT count(*), coalesce(max(seq), 0) FROM events WHERE seq > $1 AND origin = $2",
		int64(d.after), s.instance).Scan(&found, &newest); err != nil {
		return market.Landed{}, fmt.Errorf("read the log to learn whether a commit was saved: %w", err)
	}
	switch found {
	case 0:
		return market.Landed{}, nil
	case int64(d.entries):
		return market.Landed{After: uint64(newest) - uint64(d.entries), Entries: d.entries}, nil
	}
	return market.Landed{}, fmt.Errorf("%w, and the log holds %d entries of this instance past %d, not 0 or %d; open the market again",
		errLost, found, d.after, d.entries)
}

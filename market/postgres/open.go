package postgres

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rynek/rynek/market"
)

// Options tune the store.
type Options struct {
	// Instance is this instance's name in the network, unique among the
	// instances that share the market, shown as the origin of its events;
	// the machine's host name when empty.
	Instance string
	// Tool opens the market for a tool (an import, an export, seeding):
	// it holds the name's lock like an instance, but it is not one of the
	// network's instances, so it has no delivery mark of its own and the
	// log's retention does not wait for it.
	Tool bool
}

// Open connects to the database dsn (a postgres:// URL or a keyword/value
// string), creates the schema in an empty database, and refuses a database
// that holds other tables, a newer schema, or a market another instance has
// open.
func Open(dsn string, opts Options) (*Store, error) {
	ctx := context.Background()
	s := &Store{ctx: ctx, instance: opts.Instance, name: redact(dsn), tool: opts.Tool}
	if s.instance == "" {
		host, err := os.Hostname()
		if err != nil {
			return nil, fmt.Errorf("name this instance (the host name is unknown: %v)", err)
		}
		s.instance = host
	}
	if err := s.open(dsn); err != nil {
		s.Close()
		return nil, fmt.Errorf("open the PostgreSQL market %s: %w", redact(dsn), err)
	}
	return s, nil
}

func (s *Store) open(dsn string) error {
	var err error
	if s.cfg, err = pgx.ParseConfig(dsn); err != nil {
		return err
	}
	s.cfg.ConnectTimeout = 10 * time.Second
	s.nameConnections(s.cfg)
	if err := s.connect(); err != nil {
		return err
	}
	if err := s.migrate(); err != nil {
		return err
	}
	pcfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return err
	}
	pcfg.MaxConns = 4
	pcfg.ConnConfig.ConnectTimeout = s.cfg.ConnectTimeout // a follower's read gives up on a dead link too
	s.nameConnections(pcfg.ConnConfig)
	if s.readers, err = pgxpool.NewWithConfig(s.ctx, pcfg); err != nil {
		return err
	}
	// A new instance's listeners start at the log's end: they get what
	// happens from now on, not the market's whole past.
	var last int64
	if err := s.conn.QueryRow(s.ctx, `WITH i AS (INSERT INTO rynek_instances (name, published)
			SELECT $1, last_seq FROM event_counter WHERE NOT $2 ON CONFLICT (name) DO NOTHING)
		SELECT last_seq FROM event_counter`, s.instance, s.tool).Scan(&last); err != nil {
		return err
	}
	s.lastSeq = uint64(last)
	if !s.tool {
		// Listening from the start, so that the duty can be this
		// instance's before its first tick.
		s.listenMu.Lock()
		err = s.listen(s.ctx)
		s.listenMu.Unlock()
	}
	return err
}

// ownerLock is the advisory lock class of the instances' names (with the
// name's hash as the key) and, plus one, of the schema's creation.
const ownerLock = 0x52594E4B // 'RYNK'

// connect opens the writer's connection anew and takes the owner's lock on
// it (on the main thread: briefly, reconnectTimeout, when it replaces a
// broken one). mu must be held.
func (s *Store) connect() error {
	ctx := s.ctx
	if s.conn != nil { // a reconnection: keep the main thread's wait short
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(s.ctx, reconnectTimeout)
		defer cancel()
		s.conn.Close(ctx)
	}
	conn, err := s.dial(ctx)
	if err != nil {
		return err
	}
	s.conn = conn
	return nil
}

// dial connects to the server and takes the owner's lock on the new
// connection.
func (s *Store) dial(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, s.cfg)
	if err != nil {
		return nil, err
	}
	// An instance of the same name that has just closed (or this one's
	// broken session, which the server has not ended yet) may still hold
	// the lock for a moment: its server process lets go when it has exited.
	var owned bool
	for deadline := time.Now().Add(lockWait); ; time.Sleep(25 * time.Millisecond) {
		if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1, hashtext($2))", int32(ownerLock), s.instance).Scan(&owned); err != nil {
			conn.Close(s.ctx)
			return nil, err
		}
		if owned || time.Now().After(deadline) || ctx.Err() != nil {
			break
		}
	}
	if !owned {
		conn.Close(s.ctx)
		return nil, fmt.Errorf("another Rynek instance named %q has this market open; close it, or give each instance its own name", s.instance)
	}
	return conn, nil
}

// nameConnections gives this instance's connections the application name
// "rynek:<instance>", unless the connection string sets one: an admin sees
// in pg_stat_activity which server of the network each one serves.
func (s *Store) nameConnections(cfg *pgx.ConnConfig) {
	if cfg.RuntimeParams["application_name"] == "" {
		cfg.RuntimeParams["application_name"] = "rynek:" + s.instance
	}
}

// redact drops a password from dsn for messages.
func redact(dsn string) string {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return "(unparseable connection string)"
	}
	return fmt.Sprintf("%s@%s:%d/%s", cfg.User, cfg.Host, cfg.Port, cfg.Database)
}

// ready reconnects a broken writer connection, and refuses commits while
// one is in doubt (reach.go) or after an outcome was lost. It returns at
// once when the server is still away, so a mutation fails fast instead of
// holding up the main thread.
func (s *Store) ready() error {
	if s.lost != nil {
		return s.lost
	}
	if s.doubt != nil {
		return &linkFault{text: "a change sent when the link to PostgreSQL broke waits for the server to say whether it was saved; nothing else is saved meanwhile",
			kind: market.ErrInDoubt}
	}
	if s.suspect.Swap(false) && s.conn != nil {
		// The listening connection broke since the last commit: the
		// server may have gone away, which a write on the writer's
		// connection would not notice until after sending (and then it
		// could not tell whether the commit happened). Connect anew first.
		s.conn.Close(s.ctx)
	}
	if s.conn != nil && !s.conn.IsClosed() {
		return nil
	}
	if err := s.connect(); err != nil {
		return unreachable(err)
	}
	return nil
}

// lockWait is how long Open waits for an instance of the same name that is
// closing to let go of the name.
const lockWait = time.Second

// Instance is this instance's name.
func (s *Store) Instance() string { return s.instance }

// OthersOpen counts the other instances that have the market open now.
func (s *Store) OthersOpen() (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.writerFree(); err != nil {
		return 0, err
	}
	var n int
	err := s.conn.QueryRow(s.ctx, `SELECT count(*) FROM pg_locks
		WHERE locktype = 'advisory' AND classid = $1::oid AND objsubid = 2 AND granted AND pid <> pg_backend_pid()`, int64(uint32(ownerLock))).Scan(&n)
	return n, err
}

// Peers lists the other instances that have the market open now: the rows
// of rynek_instances whose name's lock a session holds. It reads on a read
// connection: the follower's goroutine asks, never a main thread.
func (s *Store) Peers() ([]market.Peer, error) {
	if s.closed.Load() {
		return nil, errClosed
	}
	ctx, cancel := context.WithTimeout(s.ctx, readTimeout)
	defer cancel()
	rows, err := s.readers.Query(ctx, `SELECT i.name FROM rynek_instances i WHERE i.name <> $2 AND EXISTS (
			SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.classid = $1::oid AND l.objsubid = 2 AND l.granted
				AND l.objid = ((hashtext(i.name)::bigint + 4294967296) % 4294967296)::oid)
		ORDER BY i.name`, int64(uint32(ownerLock)), s.instance)
	if err != nil {
		return nil, linkError(err)
	}
	peers, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (market.Peer, error) {
		var p market.Peer
		return p, r.Scan(&p.Name)
	})
	return peers, linkError(err)
}

var _ market.PeerLister = (*Store)(nil)

// Close releases the connections and with them the owner's lock.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Swap(true) {
		return nil
	}
	if s.bulk != nil {
		s.bulk.end() // a load never finished: none of it stays
	}
	if s.readers != nil {
		s.readers.Close()
	}
	s.listenMu.Lock()
	if s.listener != nil {
		s.listener.Close(s.ctx)
	}
	s.listenMu.Unlock()
	if s.conn != nil {
		return s.conn.Close(s.ctx)
	}
	return nil
}

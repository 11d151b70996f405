package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
	"github.com/rynek/rynek/seed"
)

// Start-up: a command that fails to start leaves nothing behind. It binds
// the API's address before it opens the market (httpapi.Listen), and what
// opening a market file creates (the file, its -wal and -shm, the default
// market's directory) is removed again when the start fails after it: a
// seed that fills the disk, a market that cannot be loaded.

// created is what opening a market file made that was not there before.
type created struct {
	file string   // the market file, "" when it was there
	dirs []string // directories made for it, the deepest first
}

// newMarketFile looks at the market file path before it is opened: when it
// is new, the market will be created there. The default market's directory
// is made (0700) on first use; another market's directory must exist.
func newMarketFile(path string) (created, error) {
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
		return created{}, nil // there, or not to be looked at: Open says why
	}
	made := created{file: path}
	if def, err := sqlite.DefaultFile(); err != nil || def != path {
		return made, nil
	}
	for dir := filepath.Dir(path); ; {
		if _, err := os.Lstat(dir); !errors.Is(err, os.ErrNotExist) {
			break
		}
		made.dirs = append(made.dirs, dir)
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		made.undo()
		return created{}, fmt.Errorf("create the market's directory: %w", err)
	}
	return made, nil
}

// undo removes what was created, after the store is closed: the file and
// SQLite's files beside it, then the directories, each only while empty.
func (c created) undo() {
	if c.file != "" {
		for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
			os.Remove(c.file + suffix)
		}
	}
	for _, dir := range c.dirs {
		os.Remove(dir)
	}
}

// open opens the store, seeds it when new, and enables the service on this
// goroutine, which then runs the UI: the service's main thread. When it
// fails, the market file it created is gone again.
func open(path string, opts sqlite.Options, instance string, seedN int, seedRand int64, name string, rules market.Config, stderr io.Writer) (*market.Service, openedMarket, *market.ManualClock, error) {
	var none openedMarket
	line := progressLine{w: stderr, terminal: isTerminal(stderr)}
	st, err := openMarket(path, opts, instance, false)
	if err != nil {
		return nil, none, nil, err
	}
	fail := func(err error) (*market.Service, openedMarket, *market.ManualClock, error) {
		st.store.Close()
		st.created.undo()
		if st.created.file != "" {
			err = fmt.Errorf("%w; the new market %s was removed", err, st.created.file)
		}
		return nil, none, nil, err
	}
	empty, err := st.empty()
	if err != nil {
		return fail(err)
	}
	if empty && seedN > 0 {
		start := time.Now()
		res, err := seed.Load(st.store, seed.Options{Listings: seedN, Rand: seedRand, Rules: rules, Progress: func(done, total int) {
			line.progress("rynek: seeding a demo market into %s: %3d%%", st.name, done*100/max(total, 1))
		}})
		if err != nil {
			line.end()
			if !strings.HasPrefix(err.Error(), "seed:") {
				err = fmt.Errorf("seed: %w", err)
			}
			return fail(err)
		}
		line.final("rynek: seeded %d players, %d listings, %d transactions in %s",
			res.Players, res.Listings, res.Transactions, time.Since(start).Round(time.Millisecond))
	}
	clock := market.NewOffsetClock()
	start := time.Now()
	cfg := rules
	cfg.Name, cfg.Clock = name, clock
	cfg.LoadProgress = func(done, total int) {
		line.progress("rynek: loading %s: %3d%%", st.name, done*100/max(total, 1))
	}
	svc := market.New(st.store, cfg)
	if err := svc.BindMainThread(); err != nil {
		return fail(err)
	}
	if err := svc.Enable(); err != nil {
		return fail(err)
	}
	n, _ := svc.GetActiveListingsCount()
	line.final("rynek: loaded %d active listings in %s", n, time.Since(start).Round(time.Millisecond))
	return svc, st, clock, nil
}

// progressLine shows a long step's progress on one line of a terminal,
// rewritten in place. Written to a file or a pipe (a server's log) only the
// final line of each step appears: a log of carriage returns reads as one
// line of a hundred percentages.
type progressLine struct {
	w        io.Writer
	terminal bool
	shown    bool // a progress line is on the screen, unfinished
}

func (l *progressLine) progress(format string, args ...any) {
	if l.terminal {
		fmt.Fprintf(l.w, "\r\x1b[K"+format, args...)
		l.shown = true
	}
}

// final replaces the progress with the step's last word.
func (l *progressLine) final(format string, args ...any) {
	l.clear()
	fmt.Fprintf(l.w, format+"\n", args...)
}

// clear takes the progress off the screen.
func (l *progressLine) clear() {
	if l.shown {
		io.WriteString(l.w, "\r\x1b[K")
		l.shown = false
	}
}

// end finishes an unfinished progress line, so what follows starts on a
// line of its own.
func (l *progressLine) end() {
	if l.shown {
		io.WriteString(l.w, "\n")
		l.shown = false
	}
}

// isTerminal tells whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

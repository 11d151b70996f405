package sqlite_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rynek/rynek/internal/readonly"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/sqlite"
	"github.com/rynek/rynek/market/storetest"
)

// TestSnapshots runs the stores' suite of read-only snapshots.
func TestSnapshots(t *testing.T) { storetest.Snapshots(t, tables) }

// fileState is what a read must leave as it was: the file's bytes and
// modification time, and the names in its folder.
type fileState struct {
	data  []byte
	mtime time.Time
	names []string
}

func stateOf(t *testing.T, path string) fileState {
	t.Helper()
	data, err := os.ReadFile(path)
	mustOK(t, err)
	fi, err := os.Stat(path)
	mustOK(t, err)
	entries, err := os.ReadDir(filepath.Dir(path))
	mustOK(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return fileState{data, fi.ModTime(), names}
}

func (a fileState) same(b fileState) bool {
	return bytes.Equal(a.data, b.data) && a.mtime.Equal(b.mtime) && slices.Equal(a.names, b.names)
}

// dumpOf reads the whole market through a snapshot and closes it.
func dumpOf(t *testing.T, path string) storetest.Dump {
	t.Helper()
	snap, err := sqlite.OpenSnapshot(path)
	mustOK(t, err)
	defer snap.Close()
	return storetest.DumpStore(t, snap)
}

// closedMarket makes a market with rows and log entries and closes it: one
// file, no -wal.
func closedMarket(t *testing.T) (path string, want storetest.Dump) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "market.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	mustOK(t, err)
	for i := 0; i < 3; i++ {
		mustOK(t, st.Commit(&market.Batch{Events: []market.EventRow{{Kind: market.KindPlayerData, At: int64(i), Body: []byte{byte(i)}}}}))
	}
	want = storetest.DumpStore(t, st)
	mustOK(t, st.Close())
	return path, want
}

// TestSnapshotChangesNothing: reading a closed market through a snapshot
// leaves its file's bytes and time as they were, and its folder without a
// -wal or -shm file; a market another store has open reads too, and its
// -wal and -shm stay that store's.
func TestSnapshotChangesNothing(t *testing.T) {
	path, want := closedMarket(t)
	before := stateOf(t, path)
	time.Sleep(20 * time.Millisecond) // an mtime that moved would show
	got := dumpOf(t, path)
	if after := stateOf(t, path); !before.same(after) {
		t.Fatalf("the read changed the market: folder %v -> %v, mtime %v -> %v, bytes equal %v",
			before.names, after.names, before.mtime, after.mtime, bytes.Equal(before.data, after.data))
	}
	got.Published, want.Published = 0, 0
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("read %+v, want %+v", got, want)
	}

	st, err := sqlite.Open(path, sqlite.Options{})
	mustOK(t, err)
	defer st.Close()
	mustOK(t, st.Commit(&market.Batch{Events: []market.EventRow{{Kind: market.KindPlayerData, At: 9, Body: []byte{9}}}}))
	if got := dumpOf(t, path); len(got.Events) != 4 {
		t.Fatalf("a market open elsewhere reads %d entries, want 4", len(got.Events))
	}
	if _, err := os.Stat(path + "-wal"); err != nil {
		t.Fatalf("the read took the open store's -wal away: %v", err)
	}
	mustOK(t, st.Commit(&market.Batch{Events: []market.EventRow{{Kind: market.KindPlayerData, At: 10, Body: []byte{10}}}}))
}

// TestSnapshotOnReadOnlyMedia: a market on media nothing may write (a
// mounted backup, a read-only disk) reads whole: a cleanly closed one from
// its file, and one copied while a store had it open from its file and its
// -wal, whose newest commits live only there.
func TestSnapshotOnReadOnlyMedia(t *testing.T) {
	path, want := closedMarket(t)
	media := readonly.Folder(t, filepath.Dir(path))
	got := dumpOf(t, filepath.Join(media, "market.db"))
	got.Published, want.Published = 0, 0
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("read from read-only media\n%+v\nwant\n%+v", got, want)
	}

	st, err := sqlite.Open(path, sqlite.Options{})
	mustOK(t, err)
	defer st.Close()
	mustOK(t, st.Commit(&market.Batch{Events: []market.EventRow{{Kind: market.KindPlayerData, At: 9, Body: []byte{9}}}}))
	if _, err := os.Stat(path + "-wal"); err != nil {
		t.Fatalf("no -wal while the store is open: %v", err)
	}
	media = readonly.Folder(t, filepath.Dir(path)) // the file, its -wal and -shm, as a crash leaves them
	if got := dumpOf(t, filepath.Join(media, "market.db")); len(got.Events) != 4 || !strings.Contains(got.Events[3], "PlayerData 9 09") {
		t.Fatalf("read %d entries from the copy, want the 4th from its -wal: %v", len(got.Events), got.Events)
	}
}

// TestSnapshotRefuses: a missing file, an empty one, one that is not a
// Rynek market and one of an older schema are refused, and nothing is
// created or changed.
func TestSnapshotRefuses(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.db")
	empty := filepath.Join(dir, "empty.db")
	mustOK(t, os.WriteFile(empty, nil, 0o600))
	text := filepath.Join(dir, "notes.txt")
	mustOK(t, os.WriteFile(text, []byte("hello, this is not a database at all"), 0o600))
	old, _ := closedMarket(t)
	db := openRaw(t, old)
	_, err := db.Exec("PRAGMA user_version = 3")
	mustOK(t, err)
	db.Close()
	for _, c := range []struct{ path, msg string }{
		{missing, "no market at " + missing + ": file does not exist"},
		{empty, "not a Rynek market database: the file is empty"},
		{text, "not a Rynek market database: the file is not an SQLite database"},
		{old, "schema version 3, older than this program's 8; open it once with this Rynek, which upgrades it"},
	} {
		before, _ := os.ReadFile(c.path)
		_, err := sqlite.OpenSnapshot(c.path)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want %q", filepath.Base(c.path), err, c.msg)
		}
		if after, _ := os.ReadFile(c.path); !bytes.Equal(before, after) {
			t.Errorf("%s was changed", filepath.Base(c.path))
		}
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the missing market was created: %v", err)
	}
}

// TestALongReadDoesNotHoldUpCommits: while a snapshot holds an old instant
// (a check of a large market takes seconds), the WAL grows past the size
// at which the store restarts it; the restart would wait for the reader
// and hold every commit back meanwhile, so it waits for the reader to end
// instead. Commits stay fast throughout, and the WAL starts over once the
// reader is gone.
func TestALongReadDoesNotHoldUpCommits(t *testing.T) {
	defer sqlite.SetCheckpoints(20*time.Millisecond, 256<<10)()
	path := filepath.Join(t.TempDir(), "market.db")
	st, err := sqlite.Open(path, sqlite.Options{})
	mustOK(t, err)
	defer st.Close()
	body := make([]byte, 2000)
	seq := 0
	commit := func() time.Duration {
		seq++
		start := time.Now()
		mustOK(t, st.Commit(&market.Batch{Events: []market.EventRow{{Kind: market.KindPlayerData, At: int64(seq), Body: body}}}))
		return time.Since(start)
	}
	walSize := func() int64 {
		fi, err := os.Stat(path + "-wal")
		if err != nil {
			return 0
		}
		return fi.Size()
	}
	commit()
	snap, err := sqlite.OpenSnapshot(path)
	mustOK(t, err)
	if _, err := snap.ReadEvents(0, 1, func(market.EventRow) error { return nil }); err != nil { // the instant begins
		t.Fatal(err)
	}
	var slowest time.Duration
	for start := time.Now(); time.Since(start) < 1500*time.Millisecond; {
		slowest = max(slowest, commit())
	}
	if size := walSize(); size < 256<<10 {
		t.Fatalf("the WAL is %d bytes: the test did not take it past the restart size", size)
	}
	if slowest > 500*time.Millisecond {
		t.Fatalf("a commit waited %s while a snapshot was open", slowest)
	}
	mustOK(t, snap.Close())
	grown := walSize()
	for start := time.Now(); walSize() >= grown && time.Since(start) < 5*time.Second; {
		commit()
	}
	if size := walSize(); size >= grown {
		t.Fatalf("the WAL did not start over after the snapshot ended: %d bytes, was %d", size, grown)
	}
}

package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Backup writes a consistent copy of the market to dest through SQLite
// itself (VACUUM INTO) from a read snapshot, so commits go on meanwhile and
// the copy holds every change up to one instant, rows and event log alike.
func (s *Store) Backup(dest string) error {
	if s.isClosed() {
		return errClosed
	}
	return vacuumInto(s.path, dest)
}

// BackupFile copies the market database at path to dest without opening it
// as a store: it works while another process has the market open (a
// console, a server), since WAL readers never block the writer.
func BackupFile(path, dest string) error {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("no market at %s: %w", path, fs.ErrNotExist)
	}
	if err != nil {
		return fmt.Errorf("back up %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("back up %s: not a market database file", path)
	}
	if err := checkFile(path); err != nil {
		return err
	}
	if _, err := os.Stat(legacyLogPath(path)); err == nil {
		return fmt.Errorf("back up %s: it still has a change log of an older Rynek (%s); open the market once with this version, which replays it, then back it up", path, legacyLogPath(path))
	}
	db, err := sql.Open("sqlite", readerDSN(path))
	if err != nil {
		return err
	}
	defer db.Close()
	app, ver, err := readSchema(context.Background(), db)
	if err != nil {
		return fmt.Errorf("back up %s: %w", path, err)
	}
	switch {
	case app != applicationID:
		return fmt.Errorf("back up %s: %w", path, ErrForeign)
	case ver > SchemaVersion:
		return fmt.Errorf("back up %s: schema version %d is newer than this program's %d; use a newer Rynek", path, ver, SchemaVersion)
	}
	return vacuumInto(path, dest)
}

// vacuumInto copies the database at path to dest from one read snapshot.
// The copy is written to a new file next to dest (dest.partial-N, mode
// 0600 from its creation: it is the market's copy), synced and linked into
// place, so that dest is either absent or complete. An existing dest is
// refused, never overwritten. The partial copies of backups that were
// killed, in dest's directory, are removed first (removeStalePartials).
//
// It runs on a connection of its own, not the store's readers: those are
// query_only, which VACUUM INTO refuses though it writes only the copy.
func vacuumInto(path, dest string) error {
	ctx := context.Background()
	db, err := sql.Open("sqlite", backupDSN(path))
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := os.Lstat(dest); err == nil {
		return fmt.Errorf("back up to %s: the file exists; choose a new name", dest)
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("back up to %s: %w", dest, err)
	}
	dir := filepath.Dir(dest)
	removeStalePartials(dir)
	// CreateTemp makes the file 0600 and VACUUM INTO keeps an empty file's
	// mode (it would create a missing one 0644). The lock held until the
	// end says that this backup is running.
	tmp, err := os.CreateTemp(dir, filepath.Base(dest)+partialInfix+"*")
	if err != nil {
		return fmt.Errorf("back up to %s: %w", dest, err)
	}
	defer tmp.Close()
	tryLock(tmp)
	tmpPath := tmp.Name()
	defer func() {
		os.Remove(tmpPath + "-journal") // VACUUM INTO's, left when it failed
		os.Remove(tmpPath)
	}()
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", tmpPath); err != nil {
		return fmt.Errorf("back up to %s: %w", dest, describe(err))
	}
	if err := syncFile(tmpPath); err != nil {
		return fmt.Errorf("back up to %s: %w", dest, err)
	}
	if err := os.Chmod(tmpPath, 0o600); err != nil {
		return fmt.Errorf("back up to %s: %w", dest, err)
	}
	// A hard link, unlike a rename, never replaces a dest that appeared
	// meanwhile; a filesystem without links gets a rename after one more
	// look.
	if err := os.Link(tmpPath, dest); err != nil {
		if _, serr := os.Lstat(dest); serr == nil {
			return fmt.Errorf("back up to %s: the file exists; choose a new name", dest)
		}
		if err := os.Rename(tmpPath, dest); err != nil {
			return fmt.Errorf("back up to %s: %w", dest, err)
		}
	}
	return syncFile(dir)
}

func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// partialInfix names a backup's partial copy: dest + partialInfix + digits.
const partialInfix = ".partial-"

// staleEmpty is how old an empty partial copy must be to be removed: a
// backup creates its partial copy and then locks it, and one just created
// is not locked yet.
const staleEmpty = time.Minute

// removeStalePartials removes from dir the partial copies of backups that
// were killed, and their journals: files named NAME.partial-DIGITS (what
// every Rynek backup has named them) that hold the start of an SQLite copy
// (zeros: page 1 is written last, or the header), or nothing, and whose
// lock no running backup holds. What cannot be looked at is left alone.
func removeStalePartials(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	names := map[string]bool{}
	for _, e := range entries {
		names[e.Name()] = true
	}
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() {
			continue
		}
		if partial, ok := strings.CutSuffix(name, "-journal"); ok && isPartialName(partial) {
			if !names[partial] && holds(filepath.Join(dir, name), journalMagic) {
				os.Remove(filepath.Join(dir, name)) // its copy is gone
			}
			continue
		}
		if isPartialName(name) {
			removeIfStale(filepath.Join(dir, name))
		}
	}
}

// isPartialName reports whether name is NAME.partial-DIGITS.
func isPartialName(name string) bool {
	i := strings.LastIndex(name, partialInfix)
	if i <= 0 || i+len(partialInfix) == len(name) {
		return false
	}
	digits := name[i+len(partialInfix):]
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// journalMagic starts an SQLite rollback journal.
var journalMagic = []byte{0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7}

// holds reports whether the file at path starts with one of heads.
func holds(path string, heads ...[]byte) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return startsWith(f, heads...)
}

func startsWith(f *os.File, heads ...[]byte) bool {
	head := make([]byte, 16)
	n, _ := io.ReadFull(f, head)
	for _, h := range heads {
		if n >= len(h) && bytes.Equal(head[:len(h)], h) {
			return true
		}
	}
	return false
}

// removeIfStale removes the partial copy at path, and its journal, when no
// backup holds its lock.
func removeIfStale(path string) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return
	}
	switch {
	case fi.Size() == 0:
		if time.Since(fi.ModTime()) < staleEmpty {
			return
		}
	case !startsWith(f, make([]byte, 16), []byte("SQLite format 3\x00")):
		return // not a copy of Rynek's
	}
	if locked, err := tryLock(f); err != nil || !locked {
		return // a backup is writing it
	}
	os.Remove(path + "-journal")
	os.Remove(path)
}

package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
	ctx := context.Background()
	var app, ver int64
	if err := db.QueryRowContext(ctx, "PRAGMA application_id").Scan(&app); err != nil {
		return fmt.Errorf("back up %s: %w", path, describe(err))
	}
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&ver); err != nil {
		return fmt.Errorf("back up %s: %w", path, describe(err))
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
// The copy is written to a new file next to dest, synced and linked into
// place, so that dest is either absent or complete. An existing dest is
// refused, never overwritten.
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
	tmp, err := os.CreateTemp(dir, filepath.Base(dest)+".partial-*")
	if err != nil {
		return fmt.Errorf("back up to %s: %w", dest, err)
	}
	tmpPath := tmp.Name()
	tmp.Close()
	os.Remove(tmpPath) // VACUUM INTO creates the file itself and refuses one that exists
	defer os.Remove(tmpPath)
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

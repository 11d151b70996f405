package sqlite_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/rynek/rynek/market/sqlite"
)

// A backup removes the partial copies that killed backups left in its
// directory, and only those: a file of another program that is named like
// one, or an empty partial copy a backup may have created a moment ago, is
// left alone. (A running backup's locked copy: TestABackupLeavesAnother-
// RunningBackupAlone in package main.)
func TestBackupRemovesOnlyStalePartialCopies(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "m.db")
	st, err := sqlite.Open(db, sqlite.Options{})
	mustOK(t, err)
	mustOK(t, st.Close())
	backups := filepath.Join(dir, "backups")
	mustOK(t, os.Mkdir(backups, 0o700))
	old := time.Now().Add(-time.Hour)
	files := []struct {
		name    string
		content []byte
		old     bool
		kept    bool
	}{
		{"monday.db.partial-123456", make([]byte, 4096), false, false},                                    // killed while copying: zeros
		{"monday.db.partial-123456-journal", []byte("\xd9\xd5\x05\xf9\x20\xa1\x63\xd7..."), false, false}, // its journal
		{"sunday.db.partial-77", []byte("SQLite format 3\x00and the rest"), false, false},                 // killed before its link
		{"orphan.db.partial-5-journal", []byte("\xd9\xd5\x05\xf9\x20\xa1\x63\xd7..."), false, false},
		{"empty.db.partial-42", nil, true, false},                                // killed before copying
		{"fresh.db.partial-43", nil, false, true},                                // may be a backup's, just created
		{"film.mkv.partial-12", []byte("\x1aE\xdf\xa3 a download"), false, true}, // another program's
		{"notes.partial-x1", make([]byte, 4096), false, true},                    // not a backup's name
		{"journal.db.partial-9-journal", []byte("not a journal"), false, true},
	}
	for _, f := range files {
		p := filepath.Join(backups, f.name)
		mustOK(t, os.WriteFile(p, f.content, 0o644))
		if f.old {
			mustOK(t, os.Chtimes(p, old, old))
		}
	}
	mustOK(t, sqlite.BackupFile(db, filepath.Join(backups, "tuesday.db")))
	var want []string
	for _, f := range files {
		if f.kept {
			want = append(want, f.name)
		}
	}
	want = append(want, "tuesday.db")
	slices.Sort(want)
	entries, err := os.ReadDir(backups)
	mustOK(t, err)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if !slices.Equal(got, want) {
		t.Fatalf("after the backup the directory holds\n%q\nwant\n%q", got, want)
	}
	fi, err := os.Stat(filepath.Join(backups, "tuesday.db"))
	mustOK(t, err)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("the backup has mode %v", fi.Mode().Perm())
	}
}

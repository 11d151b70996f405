package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/rynek/rynek/market/sqlite"
)

// backup is the console's backup: SQLite copies itself; a PostgreSQL
// market is the server's to back up.
func (m openedMarket) backup(dest string) error {
	if m.file == nil {
		return errPostgresBackup
	}
	return m.file.Backup(dest)
}

var errPostgresBackup = errors.New("a PostgreSQL market is backed up by the server: pg_dump -Fc -d 'postgres://…' -f market.dump")

// backupUsage is the help of rynek backup, before its flags.
const backupUsage = `Usage: rynek backup [--db PATH] DEST

Writes a consistent copy of the market to the new file DEST, also while a console
or server has it open. DEST must not exist.

Flags:
`

// backupFlagSet is rynek backup's flag set, with its --db: what runBackup
// parses and rynek --help lists.
func backupFlagSet(stderr io.Writer) (*flag.FlagSet, *string) {
	fs := newFlagSet("rynek backup", backupUsage, stderr)
	return fs, fs.String("db", "", dbUsage)
}

// runBackup is `rynek backup [--db PATH] DEST`: a consistent copy of the
// market, taken through SQLite whether or not a console or server has the
// market open.
func runBackup(args []string, stdout, stderr io.Writer) int {
	fs, dbPath := backupFlagSet(stderr)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "rynek backup: give one destination file (see --help)")
		return 2
	}
	path, code := databasePath(fs, *dbPath, stderr)
	if code != 0 {
		return code
	}
	if isPostgres(path) {
		fmt.Fprintf(stderr, "rynek backup: %v\n", errPostgresBackup)
		return 2
	}
	dest := fs.Arg(0)
	start := time.Now()
	if err := sqlite.BackupFile(path, dest); err != nil {
		fmt.Fprintf(stderr, "rynek backup: %v\n", err)
		return 1
	}
	fi, err := os.Stat(dest)
	if err != nil {
		fmt.Fprintf(stderr, "rynek backup: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "backed up %s to %s (%.1f MB) in %s; open it with: rynek --db %s\n",
		path, dest, float64(fi.Size())/1e6, time.Since(start).Round(time.Millisecond), dest)
	return 0
}

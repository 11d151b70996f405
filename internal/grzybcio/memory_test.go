package grzybcio

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rynek/rynek/market/sqlite"
)

// measureEnv, when set, makes the test binary an import to measure: it
// imports the folder the variable names and prints what it measured.
const measureEnv = "RYNEK_MEASURE_IMPORT"

func TestMain(m *testing.M) {
	if dir := os.Getenv(measureEnv); dir != "" {
		os.Exit(measureChild(dir))
	}
	os.Exit(m.Run())
}

// importMemory is what one import in a process of its own used.
type importMemory struct {
	Listings int
	// StartHeap and PeakHeap are the heap's live and unswept objects
	// before the import and at their highest during it, sampled every
	// millisecond; StartRSS is the process's resident memory before it.
	StartHeap, PeakHeap, StartRSS uint64
	// MaxRSS is the process's peak resident memory (the kernel's count).
	MaxRSS uint64
}

func (m importMemory) heapPerListing() float64 {
	return float64(m.PeakHeap-m.StartHeap) / float64(m.Listings)
}

func (m importMemory) rssPerListing() float64 {
	return float64(m.MaxRSS-m.StartRSS) / float64(m.Listings)
}

// measureChild imports dir into a new market in a temporary folder and
// prints an importMemory as JSON.
func measureChild(dir string) int {
	db, err := os.MkdirTemp("", "rynek-measure-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(db)
	st, err := sqlite.Open(filepath.Join(db, "market.db"), sqlite.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer st.Close()
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	heap := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	m := importMemory{StartHeap: heap(), StartRSS: residentBytes()}
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			if h := heap(); h > peak.Load() {
				peak.Store(h)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	// As rynek import does, the notes are counted and the skipped kept.
	var skipped []Note
	r, err := Import(st, ImportOptions{Dir: dir, Now: now, Note: func(n Note) {
		if n.Kind == NoteSkipped {
			skipped = append(skipped, n)
		}
	}})
	close(stop)
	<-sampled
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	m.Listings, m.PeakHeap = r.Listings, peak.Load()
	json.NewEncoder(os.Stdout).Encode(m)
	return 0
}

// residentBytes is the process's resident memory now, from /proc.
func residentBytes() uint64 {
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseUint(f[1], 10, 64)
	return pages * uint64(os.Getpagesize())
}

// measureImport imports n generated listings in a child process and returns
// what it used.
func measureImport(t testing.TB, n int) importMemory {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("SKIPPED: the measurement reads /proc and the kernel's peak resident memory")
	}
	if raceEnabled {
		t.Skip("SKIPPED under the race detector: its shadow memory makes the heap's size meaningless")
	}
	dir := t.TempDir()
	writeGenerated(t, dir, n)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), measureEnv+"="+dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the measured import: %v", err)
	}
	var m importMemory
	must(t, json.Unmarshal(out, &m))
	m.MaxRSS = uint64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) * 1024
	if m.Listings != n {
		t.Fatalf("%d of %d listings imported", m.Listings, n)
	}
	return m
}

// An import streams its files: what it holds per listing is its keys and,
// for a chunk of rows on their way to the store, the row, not the file's
// text or a tree of it (10.6 KB a listing once; the target is at
// most 1 KB).
func TestImportMemoryPerListing(t *testing.T) {
	m := measureImport(t, 100_000)
	t.Logf("100,000 listings: peak heap %.0f B a listing, peak resident memory %.0f B a listing (%.1f MB)",
		m.heapPerListing(), m.rssPerListing(), float64(m.MaxRSS)/1e6)
	if m.heapPerListing() > 1024 {
		t.Errorf("the import's heap peaked at %.0f bytes a listing; at most 1,024", m.heapPerListing())
	}
}

// BenchmarkImportMemory300k imports 300,000 generated listings in a
// process of its own and reports its peak heap and peak resident memory a
// listing.
func BenchmarkImportMemory300k(b *testing.B) {
	for b.Loop() {
		m := measureImport(b, 300_000)
		b.ReportMetric(m.heapPerListing(), "heap-B/listing")
		b.ReportMetric(m.rssPerListing(), "rss-B/listing")
		b.ReportMetric(float64(m.MaxRSS)/1e6, "maxrss-MB")
	}
}

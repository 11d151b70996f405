package grzybcio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
	"go.yaml.in/yaml/v3"
)

// ImportOptions control an import.
type ImportOptions struct {
	// Dir is the plugin's data folder, holding listings.yml and
	// market-data.yml.
	Dir string
	// ExpiryDays is the plugin's listing-expiry-days: it stored no expiry,
	// and computed one from its creation time and this setting. ExpiryFrom
	// says where the number comes from, for the report.
	ExpiryDays int
	ExpiryFrom string
	// Now decides which listings have expired already (zero: the clock's
	// time).
	Now time.Time
	// DryRun reads, checks and reports everything and writes nothing.
	DryRun bool
	// Merge adds to a market that has data; without it such a market is
	// refused.
	Merge bool
	// Partial imports files that were cut short (see cut.go): what is whole
	// is imported and what was cut is reported. Without it such files are
	// refused with the place of the cut, and nothing is written.
	Partial bool
	// Rules are the market's rules, which every imported listing obeys: one
	// they refuse is not listed, and its item goes back to its seller's
	// mailbox, as an admin's removal would put it. Zero values are the
	// defaults, as for the market. RulesFrom says where they come from,
	// for the report.
	Rules     market.Config
	RulesFrom string
	// Note, if set, is given each note as it is made, in the files'
	// order, and the report keeps only their counts: a large import's
	// notes need not wait in memory.
	Note func(Note)
	// Progress, if set, is told how many entries of the total are loaded.
	Progress func(done, total int)
}

// DefaultExpiryDays is the plugin's default listing-expiry-days.
const DefaultExpiryDays = 7

// unfinishedPrefix starts the error code of a transaction the plugin left in
// a state that is not final: it is kept as FAILED history, never replayed
// against money, and the code says which state it was in (and the plugin's
// own error, if it had one), so that an export can give it back.
const unfinishedPrefix = "IMPORTED_UNFINISHED:"

// stackSpace is the namespace of the stack ids an import makes: each is
// derived from what identifies its entry in the files, so that a second
// merge of the same files finds every stack it brought already there.
var stackSpace = uuid.MustParse("7b0c6a52-3f0e-4c83-9d55-2a1d9e6c4f10")

// ErrNotEmpty is returned for a market that has data when Merge is off.
var ErrNotEmpty = errors.New("the market is not empty: an import goes into an empty market; add --merge to add to this one (what it has is never overwritten, and merging the same files again adds nothing)")

// Import loads the plugin's files from o.Dir into store as one bulk
// transaction: all of it, or on any failure nothing. It reads the files an
// entry at a time, so that what it holds is the rows it loads, not the
// files. The report says what was loaded, refused, skipped, rounded,
// expired and not imported. An import that would add nothing writes
// nothing (Report.Added). A store of nil is an empty market that does not exist yet (a
// dry run before the first import).
func Import(store market.Store, o ImportOptions) (*Report, error) {
	if o.ExpiryDays == 0 {
		o.ExpiryDays = DefaultExpiryDays
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	if o.ExpiryDays < 1 || o.ExpiryDays > 36500 {
		return nil, fmt.Errorf("the expiry must be 1 to 36500 days, not %d", o.ExpiryDays)
	}
	if store == nil {
		if !o.DryRun {
			return nil, errors.New("an import that writes needs a market")
		}
		store = emptyStore{}
	} else if o.DryRun {
		store = dryRun{store}
	}
	// What an import holds is a chunk of rows on their way to the store
	// (up to 50,000), the bulk load's keys, and the garbage of parsing,
	// kilobytes a listing: collecting when the heap has grown by 20%
	// instead of 100% keeps its peak near what it holds. At 300,000
	// listings: 280-292 bytes a listing (876-893 when every row waited for
	// the end, against 1,357 at 100% and 924-1,044 at 30%, for about 8%
	// more CPU time than 30%).
	defer debug.SetGCPercent(debug.SetGCPercent(20))
	l := &loading{o: o, rules: market.NewListingRules(o.Rules), listed: map[int32]listed{}, players: map[uuid.UUID]*seen{},
		perSeller: map[uuid.UUID]int{}, favorites: map[uuid.UUID][]favorite{}, alerts: map[uuid.UUID][]alertEntry{},
		ratings: map[uuid.UUID]ratingEntry{}}
	// A load keeps what the source had, as the market keeps a player's
	// listings when the limit is lowered: the report counts who is over.
	l.limit = o.Rules.MaxListingsPerPlayer
	if l.limit <= 0 {
		l.limit = market.DefaultConfig().MaxListingsPerPlayer
	}
	l.r = &Report{Dir: o.Dir, DryRun: o.DryRun, Merge: o.Merge, Partial: o.Partial, ExpiryDays: o.ExpiryDays, ExpiryFrom: o.ExpiryFrom,
		Rules: l.rules.String(), RulesFrom: o.RulesFrom, Limit: l.limit, counts: map[NoteKind]int{}}
	lo, err := readOutline(filepath.Join(o.Dir, ListingsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s has no %s: give the plugin's data folder (plugins/GrzybcioRynek)", o.Dir, ListingsFile)
	} else if err != nil {
		return nil, err
	}
	mo, err := readOutline(filepath.Join(o.Dir, MarketDataFile))
	if errors.Is(err, fs.ErrNotExist) {
		mo = nil // the plugin's first versions had no market-data.yml
	} else if err != nil {
		return nil, err
	}
	l.r.NoMarketData = mo == nil
	if err := l.checkSections(lo, listingsSections); err != nil {
		return nil, err
	}
	if mo != nil {
		if err := l.checkSections(mo, marketDataSections); err != nil {
			return nil, err
		}
	}
	for _, c := range []*cut{findCut(lo, "next-id"), emptyListings(lo, mo), findCut(mo, "transactions")} {
		if c == nil {
			continue
		}
		if !o.Partial {
			return nil, c.refusal()
		}
		l.cuts = append(l.cuts, c)
	}
	if l.nextID, err = readNextID(lo); err != nil {
		return nil, err
	}
	if c := l.cutIn(lo); c != nil && c.in != nil && c.in.key == "next-id" {
		l.nextID = 0 // cut in its number: the highest id met will do, as the plugin did
	}
	var k *market.Bulk
	if o.Merge {
		k, err = market.NewMerge(store)
	} else {
		k, err = market.NewBulk(store)
		if errors.Is(err, market.ErrStoreNotEmpty) {
			return nil, ErrNotEmpty
		}
	}
	if err != nil {
		return nil, err
	}
	defer k.Abort() // a load that stops half-way leaves the market as it was
	l.k = k
	for _, ol := range []*outline{lo, mo} {
		if ol == nil {
			continue
		}
		for _, s := range ol.sections {
			if s.block {
				l.total += s.entries
			} else {
				l.total++
			}
		}
	}
	k.Reserve(l.total + l.total/16) // about a row an entry, and the players
	if err := l.run(lo, mo); err != nil {
		return nil, err
	}
	sum := k.Summary()
	l.r.Players, l.r.KnownPlayers = sum.Players, sum.SkippedPlayers
	l.r.AlreadyThere = sum.SkippedListings + sum.SkippedMail + sum.SkippedTransactions
	if !o.DryRun && l.r.Added() > 0 {
		if err := k.Finish(); err != nil {
			return nil, fmt.Errorf("write the market: %w", err)
		}
	}
	return l.r, nil
}

// readNextID reads listings.yml's next-id: 0 when it has none.
func readNextID(o *outline) (int64, error) {
	s := o.get("next-id")
	if s == nil {
		return 0, nil
	}
	f, err := os.Open(o.path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n, err := o.parse(f, s)
	if err != nil {
		return 0, err
	}
	v, ok := integer(n)
	if !ok || v < 1 || v > 1<<31 {
		return 0, (&file{path: o.path}).errorf(n, "next-id is %s, not a whole number from 1 to 2147483648", kindName(n))
	}
	return v, nil
}

// checkSections refuses a file that is not the plugin's: it must have at
// least one of the plugin's sections. A section the plugin never wrote
// beside them (another version's, or a hand edit) is noted and left out,
// as is a second one with the same key.
func (l *loading) checkSections(o *outline, known []string) error {
	var foreign []string
	for _, s := range o.sections {
		if !slices.Contains(known, s.key) {
			foreign = append(foreign, s.key)
		}
	}
	if len(o.sections) > 0 && len(foreign) == len(o.sections) {
		return &Error{File: o.path, Line: o.sections[0].line, Column: 1, Reason: fmt.Sprintf(
			"this is not GrzybcioRynek's %s: it has none of the plugin's sections (%s), but %s", filepath.Base(o.path),
			joinComma(known), truncate(joinComma(foreign), 120))}
	}
	where := func(s section) string { return fmt.Sprintf("%s:%d:%d", o.path, s.line, s.col) }
	for _, s := range o.sections {
		if !slices.Contains(known, s.key) {
			l.note(NoteSkipped, where(s), "section %q skipped: the plugin never wrote it", truncate(s.key, 60))
		}
	}
	for _, s := range o.repeated {
		l.note(NoteSkipped, where(s), "section %q skipped: it is there twice, and the first is read", truncate(s.key, 60))
	}
	return nil
}

func joinComma(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}

// loading is one import's progress through the files.
type loading struct {
	o     ImportOptions
	k     *market.Bulk
	r     *Report
	rules *market.ListingRules
	limit int // the listings a player may have
	// nextID is listings.yml's next-id, 0 when it has none.
	nextID int64
	cuts   []*cut
	// listed is each listing id of the files met so far; players the
	// name each player has and where it comes from; perSeller the
	// listings each seller has on the market.
	listed    map[int32]listed
	players   map[uuid.UUID]*seen
	perSeller map[uuid.UUID]int
	// renumber waits for the end of the listings: listings whose id a
	// merge's market has given already get new ids after every kept one.
	renumber []renumbered
	// What market-data.yml says of the players and their sales, kept
	// until the sales and the players are in.
	favorites map[uuid.UUID][]favorite
	alerts    map[uuid.UUID][]alertEntry
	ratings   map[uuid.UUID]ratingEntry
	done      int
	total     int
	// unknown is each material the catalogue lacks, by its place in
	// the report's UnknownMaterials.
	unknown map[string]int
}

// listed is what an import keeps of each listing id of the files, small
// for there may be millions: enough to tell a repeat of an entry from
// another listing with its id (same seller and time: same hash), the line
// of the first, and the id it got on the market (0: it is not on the
// market).
type listed struct {
	hash uint64
	line int32
	got  int32
}

// sameListing is the hash of what makes two entries with one id the same
// listing: its seller and its time (FNV-1a).
func sameListing(seller uuid.UUID, created int64) uint64 {
	h := uint64(14695981039346656037)
	for _, b := range seller {
		h = (h ^ uint64(b)) * 1099511628211
	}
	for i := range 8 {
		h = (h ^ uint64(byte(created>>(8*i)))) * 1099511628211
	}
	return h
}

type renumbered struct {
	l     market.BulkListing
	where string
}

// seen is the name a player has in the load and the time it is from;
// kept is set for a player a merge found in the market, who keeps what
// they have.
type seen struct {
	name string
	at   int64
	kept bool
}

func (l *loading) step() {
	l.done++
	if l.o.Progress != nil && (l.done%4096 == 0 || l.done == l.total) {
		l.o.Progress(l.done, l.total)
	}
}

func (l *loading) note(kind NoteKind, where, format string, args ...any) {
	l.emit(Note{Kind: kind, Where: where, Text: fmt.Sprintf(format, args...)})
}

// emit adds n to the report, or gives it to the caller's Note.
func (l *loading) emit(n Note) {
	l.r.counts[n.Kind]++
	if l.o.Note != nil {
		l.o.Note(n)
		return
	}
	l.r.Notes = append(l.r.Notes, n)
}

// cutIn is the cut of o, nil when o is whole.
func (l *loading) cutIn(o *outline) *cut {
	for _, c := range l.cuts {
		if c.o == o {
			return c
		}
	}
	return nil
}

// run reads the two files, listings.yml first (its next-id is known
// already), and loads what they hold.
func (l *loading) run(lo, mo *outline) error {
	if l.nextID > 0 {
		l.k.SetNextListingID(l.nextID)
	}
	if err := l.readListingsFile(lo); err != nil {
		return err
	}
	if mo != nil {
		if err := l.readMarketData(mo); err != nil {
			return err
		}
	}
	if err := l.playerData(); err != nil {
		return err
	}
	left := make([]uuid.UUID, 0, len(l.ratings))
	for id := range l.ratings {
		left = append(left, id)
	}
	slices.SortFunc(left, func(a, b uuid.UUID) int { return l.ratings[a].at.line - l.ratings[b].at.line })
	for _, id := range left {
		l.note(NoteSkipped, l.ratings[id].at.String(), "rating of transaction %s skipped: no such transaction in the files", id)
	}
	for _, c := range l.cuts {
		l.note(NoteCut, fmt.Sprintf("%s:%d", c.o.path, c.o.lines), "%s", c.note())
	}
	for _, n := range l.perSeller {
		if n > l.limit {
			l.r.OverLimit++
			l.r.MostListings = max(l.r.MostListings, n)
		}
	}
	return nil
}

// sectionReader reads the sections of one file.
type sectionReader struct {
	l  *loading
	o  *outline
	f  *file
	fh *os.File
}

// entryResult is what reading one entry made of it.
type entryResult[P any] struct {
	line  int
	err   error // the entry is not valid YAML, or not what its section holds
	notes notes
	val   P
	ok    bool
	whole bool // it has every key the plugin writes, its item followed by more
}

// readSection reads section s, whose value is of kind (a list or a map):
// read makes each entry into a P on any goroutine, apply takes them in the
// file's order. keys are the keys that make an entry whole (nil: it is
// never known to be), for the entry a cut goes through.
func readSection[P any](r *sectionReader, s *section, kind yaml.Kind, keys []string,
	read func(k, v *yaml.Node, ns *notes) (P, bool), apply func(P) error) error {
	want := map[yaml.Kind]string{yaml.SequenceNode: "a list", yaml.MappingNode: "a map"}[kind]
	if !s.block {
		v, err := r.o.parse(r.fh, s)
		if err != nil {
			return err
		}
		r.l.step()
		if isNull(v) {
			return nil
		}
		if v.Kind != kind {
			return r.f.errorf(v, "%s is %s, not %s", s.key, kindName(v), want)
		}
		each := func(k, v *yaml.Node) error {
			var ns notes
			p, ok := read(k, deref(v), &ns)
			r.l.addNotes(ns)
			if ok {
				return apply(p)
			}
			return nil
		}
		if kind == yaml.SequenceNode {
			for _, e := range v.Content {
				if err := each(nil, e); err != nil {
					return err
				}
			}
			return nil
		}
		return pairs(v, each)
	}
	if s.seq != (kind == yaml.SequenceNode) {
		got := map[bool]string{true: "a list", false: "a map"}[s.seq]
		return &Error{File: r.o.path, Line: s.first, Column: s.indent + 1, Reason: fmt.Sprintf("%s is %s, not %s", s.key, got, want)}
	}
	c := r.l.cutIn(r.o)
	cutEntry := 0 // the line of the entry the file was cut in
	if c != nil && c.in != nil && c.in.key == s.key {
		cutEntry = s.last
	}
	produce := func(emit func(rawEntry) error) error {
		return r.o.eachEntry(r.fh, s, func(text []byte, line int) error { return emit(rawEntry{text, line}) })
	}
	parse := func(e rawEntry) entryResult[P] {
		res := entryResult[P]{line: e.line}
		root, err := parseText(r.o.path, e.text, e.line)
		var k, v *yaml.Node
		switch {
		case err != nil:
			res.err = err
			return res
		case root != nil && kind == yaml.SequenceNode && root.Kind == yaml.SequenceNode && len(root.Content) == 1:
			v = deref(root.Content[0])
		case root != nil && kind == yaml.MappingNode && root.Kind == yaml.MappingNode && len(root.Content) == 2:
			k, v = deref(root.Content[0]), deref(root.Content[1])
		default:
			res.err = &Error{File: r.o.path, Line: e.line, Reason: fmt.Sprintf("not valid YAML here: an entry of %s that is not one of %s", s.key, want)}
			return res
		}
		res.whole = keys != nil && whole(v, keys)
		res.val, res.ok = read(k, v, &res.notes)
		return res
	}
	return stream(produce, parse, func(res entryResult[P]) error {
		r.l.step()
		if res.line == cutEntry {
			c.lastWhat = fmt.Sprintf("entry %d of %s (from line %d)", s.entries, s.key, res.line)
			if res.err != nil || !res.whole || c.midLine {
				c.lastLeftOut = true
				return nil
			}
		}
		if res.err != nil {
			return res.err
		}
		r.l.addNotes(res.notes)
		if res.ok {
			return apply(res.val)
		}
		return nil
	})
}

func (l *loading) addNotes(ns notes) {
	for _, n := range ns {
		l.emit(n)
	}
}

// open starts reading the sections of o.
func (l *loading) open(o *outline) (*sectionReader, error) {
	fh, err := os.Open(o.path)
	if err != nil {
		return nil, err
	}
	return &sectionReader{l: l, o: o, f: &file{path: o.path}, fh: fh}, nil
}

func (l *loading) readListingsFile(o *outline) error {
	r, err := l.open(o)
	if err != nil {
		return err
	}
	defer r.fh.Close()
	for i := range o.sections {
		s := &o.sections[i]
		switch s.key {
		case "next-id":
			l.step() // read already
		case "listings":
			err = readSection(r, s, yaml.SequenceNode, listingKeys, func(_, v *yaml.Node, ns *notes) (listingEntry, bool) {
				return readListing(r.f, v, ns)
			}, l.listing)
			if err == nil {
				err = l.renumberListings()
			}
		case "expiry-outbox":
			err = readSection(r, s, yaml.MappingNode, nil, func(k, v *yaml.Node, ns *notes) (mailEntry, bool) {
				return readOutbox(r.f, k, v, ns)
			}, func(m mailEntry) error { return l.mail(m, &l.r.Outbox) })
		case "pending-returns":
			err = readSection(r, s, yaml.MappingNode, nil, func(k, v *yaml.Node, ns *notes) ([]mailEntry, bool) {
				return readPendingReturns(r.f, k, v, ns), true
			}, func(ms []mailEntry) error { return l.mails(ms, &l.r.PendingReturns) })
		case "pending-sales":
			err = readSection(r, s, yaml.MappingNode, nil, func(_, v *yaml.Node, _ *notes) (int, bool) {
				return saleNotices(v), true
			}, func(n int) error { l.r.SaleNotices += n; return nil })
		default:
			l.step()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// readMarketData reads market-data.yml: the ratings before the
// transactions they rate, the players' favourites and alerts until the
// players are all in.
func (l *loading) readMarketData(o *outline) error {
	r, err := l.open(o)
	if err != nil {
		return err
	}
	defer r.fh.Close()
	order := slices.Clone(o.sections)
	if t, rt := slices.IndexFunc(order, func(s section) bool { return s.key == "transactions" }),
		slices.IndexFunc(order, func(s section) bool { return s.key == "ratings" }); t >= 0 && rt > t {
		order = slices.Insert(slices.Delete(order, rt, rt+1), t, order[rt])
	}
	for i := range order {
		s := &order[i]
		switch s.key {
		case "favorites":
			err = readSection(r, s, yaml.MappingNode, nil, func(k, v *yaml.Node, ns *notes) (ownerFavorites, bool) {
				owner, ids := readFavorites(r.f, k, v, ns)
				return ownerFavorites{owner, ids}, owner != uuid.Nil
			}, func(f ownerFavorites) error {
				l.favorites[f.owner] = append(l.favorites[f.owner], f.ids...)
				return nil
			})
		case "alerts":
			err = readSection(r, s, yaml.MappingNode, nil, func(k, v *yaml.Node, ns *notes) (ownerAlerts, bool) {
				owner, alerts := readAlerts(r.f, k, v, ns)
				return ownerAlerts{owner, alerts}, owner != uuid.Nil
			}, func(a ownerAlerts) error {
				l.alerts[a.owner] = append(l.alerts[a.owner], a.alerts...)
				return nil
			})
		case "ratings":
			err = readSection(r, s, yaml.SequenceNode, nil, func(_, v *yaml.Node, ns *notes) (txRating, bool) {
				id, rating, ok := readRating(r.f, v, ns)
				return txRating{id, rating}, ok
			}, func(t txRating) error { l.ratings[t.id] = t.rating; return nil })
		case "mailbox":
			err = readSection(r, s, yaml.MappingNode, nil, func(k, v *yaml.Node, ns *notes) ([]mailEntry, bool) {
				return readMailbox(r.f, k, v, ns), true
			}, func(ms []mailEntry) error { return l.mails(ms, &l.r.Mail) })
		case "transactions":
			err = readSection(r, s, yaml.SequenceNode, transactionKeys, func(_, v *yaml.Node, ns *notes) (txEntry, bool) {
				return readTransaction(r.f, v, ns)
			}, l.transaction)
		default:
			l.step()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

type ownerFavorites struct {
	owner uuid.UUID
	ids   []favorite
}

type ownerAlerts struct {
	owner  uuid.UUID
	alerts []alertEntry
}

type txRating struct {
	id     uuid.UUID
	rating ratingEntry
}

// emptyStore is a market that does not exist yet, for a dry run: it has
// nothing, and a dry run writes nothing to it.
type emptyStore struct{}

var errDryRun = errors.New("a dry run writes nothing")

func (emptyStore) Load(l market.Loader) error { return l.Meta(market.MetaRow{NextListingID: 1}) }
func (emptyStore) LoadHistory([16]byte, int, func(market.TxRow) error) (int, error) {
	return 0, nil
}
func (emptyStore) Commit(*market.Batch) error        { return errDryRun }
func (emptyStore) BeginBulk() (market.BulkTx, error) { return droppedLoad{}, nil }
func (emptyStore) ReadEvents(uint64, int, func(market.EventRow) error) (int, error) {
	return 0, nil
}
func (emptyStore) TrimEvents(market.EventTrim) (uint64, error) { return 0, errDryRun }
func (emptyStore) ReserveListingIDs(int) (int64, error)        { return 0, errDryRun }
func (emptyStore) HoldBookmark(market.BookmarkHold) (market.Bookmark, error) {
	return market.Bookmark{}, errDryRun
}
func (emptyStore) Close() error { return nil }

// dryRun is a market a dry run reads and never writes: the load checks
// every row (market.Bulk) and its chunks are dropped here.
type dryRun struct{ market.Store }

func (dryRun) BeginBulk() (market.BulkTx, error) { return droppedLoad{}, nil }

// droppedLoad is a dry run's data load: it takes every chunk and keeps
// none.
type droppedLoad struct{}

func (droppedLoad) Write(*market.Batch) error { return nil }
func (droppedLoad) Commit() error             { return errDryRun }
func (droppedLoad) Rollback() error           { return nil }

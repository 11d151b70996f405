package grzybcio

import (
	"fmt"
	"io"
)

// NoteKind says what a Note is about.
type NoteKind string

// The kinds of Note.
const (
	NoteSkipped    NoteKind = "skipped"    // an entry left out, and why
	NoteRounded    NoteKind = "rounded"    // an amount rounded to cents
	NoteExpired    NoteKind = "expired"    // a listing past its expiry, sent to its seller's mailbox
	NoteRenumbered NoteKind = "renumbered" // a listing whose id the market had given already
	NoteShortened  NoteKind = "shortened"  // display text over Rynek's limits, or a part left unread; the kept original has it all
	NoteFlagged    NoteKind = "flagged"    // a transaction the plugin left unfinished
	NoteRefused    NoteKind = "refused"    // a listing the market's rules refuse, not listed: its item to its seller's mailbox
	NoteCut        NoteKind = "cut"        // where a file was cut short or disagrees with the other, and what is lost (Partial)
)

// Note is one thing the report says about one entry of the files.
type Note struct {
	Kind  NoteKind
	Where string // file:line:column
	Text  string
}

// Report is what an import did, or in a dry run would do.
type Report struct {
	Dir          string
	DryRun       bool
	Merge        bool
	Partial      bool
	ExpiryDays   int
	ExpiryFrom   string // where ExpiryDays comes from
	NoMarketData bool   // the folder has no market-data.yml

	// Rules are the market's listing rules the listings obey, in words,
	// and RulesFrom where they come from.
	Rules, RulesFrom string
	// Limit is the listings a player may have on the market; OverLimit
	// sellers have more from the files (the most: MostListings). They keep
	// them: a load keeps what the source had, as the market keeps a
	// player's listings when the limit is lowered.
	Limit, OverLimit, MostListings int

	// NextIDInFile is listings.yml's next-id when its own listings reach
	// it (0: they do not); NextID is then the next id, one past the
	// highest, as the plugin loads such a file, and NextIDAt that listing's
	// place.
	NextIDInFile, NextID int64
	NextIDAt             string

	// UnknownMaterials are the materials of the files' items that the
	// game's catalogue lacks, in the order met: imported as they are.
	UnknownMaterials []UnknownMaterial

	Players      int // added
	KnownPlayers int // a merge found them in the market
	Listings     int // active listings added
	Renumbered   int // of Listings, under a new id
	Expired      int // listings past their expiry, into their sellers' mailboxes
	Refused      int // listings the market's rules refuse, into their sellers' mailboxes
	Outbox       int // expiries the plugin had in flight, into mailboxes
	// PendingReturns are items the plugin owed offline sellers when its
	// mailbox was off, into their mailboxes.
	PendingReturns int
	Mail           int // mailbox entries added
	Transactions   int // history added
	Flagged        int // of Transactions, unfinished in the plugin
	Rounded        int
	AlreadyThere   int // a merge found them in the market: listings, mail, transactions

	Ratings int // buyers' ratings of imported sales
	// Favorites and Alerts are the players' favourites and price alerts;
	// FavoritesGone the favourites of listings not imported as listings
	// (expired, skipped).
	Favorites, Alerts, FavoritesGone int
	// KeptPlayerData counts the players of the files a merge found in the
	// market with favourites or alerts in the files: they keep their own,
	// as they keep their names and balances.
	KeptPlayerData int

	// In the files but not imported: Rynek shows sales in each player's
	// history instead.
	SaleNotices int

	// Notes are what the import said of each entry, in the files' order;
	// none when ImportOptions.Note took them.
	Notes  []Note
	counts map[NoteKind]int
}

// UnknownMaterial is a material the game's catalogue lacks, the entries
// whose item has it and where the first is (file:line:column).
type UnknownMaterial struct {
	Key     string
	Entries int
	First   string
}

// maxUnknownNamed bounds the unknown materials the summary names.
const maxUnknownNamed = 20

// Count returns how many notes of kind the import made.
func (r *Report) Count(kind NoteKind) int { return r.counts[kind] }

// Added counts the entries the import added, or in a dry run would add:
// listings, and mail and history (players come with them). An import
// that adds none writes nothing, not even its players.
func (r *Report) Added() int {
	return r.Listings + r.Expired + r.Refused + r.Outbox + r.PendingReturns + r.Mail + r.Transactions
}

// WriteSummary writes the counts and what each means.
func (r *Report) WriteSummary(w io.Writer) {
	switch {
	case r.Added() == 0 && r.AlreadyThere > 0:
		fmt.Fprintf(w, "Nothing new from %s: the market has all of it from an earlier import\n", r.Dir)
	case r.Added() == 0:
		fmt.Fprintf(w, "Nothing to import from %s:\n", r.Dir)
	case r.DryRun:
		fmt.Fprintf(w, "Dry run, nothing written; an import would load from %s:\n", r.Dir)
	default:
		fmt.Fprintf(w, "Imported from %s:\n", r.Dir)
	}
	fmt.Fprintf(w, "  players        %d", r.Players)
	if r.KnownPlayers > 0 {
		fmt.Fprintf(w, " (+%d already in the market, left as they are)", r.KnownPlayers)
	}
	fmt.Fprintf(w, "\n                 balances are not in these files: the economy was another plugin's (Vault); new players start at 0.00\n")
	fmt.Fprintf(w, "  listings       %d, with their ids", r.Listings)
	if r.Renumbered > 0 {
		fmt.Fprintf(w, " but %d renumbered (id taken)", r.Renumbered)
	}
	fmt.Fprintf(w, "; each expires %s after it was created, as the plugin computed it", count(r.ExpiryDays, "day"))
	if r.ExpiryFrom != "" {
		fmt.Fprintf(w, " (%s)", r.ExpiryFrom)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "                 each obeys the market's rules: %s", r.Rules)
	if r.RulesFrom != "" {
		fmt.Fprintf(w, " (%s)", r.RulesFrom)
	}
	fmt.Fprintln(w)
	if r.NextIDInFile > 0 {
		fmt.Fprintf(w, "  next-id        %d in %s, but listing #%d is there (%s): the next id is %d, as the plugin loads such a file (the highest id + 1)\n",
			r.NextIDInFile, ListingsFile, r.NextID-1, r.NextIDAt, r.NextID)
	}
	if n := len(r.UnknownMaterials); n > 0 {
		fmt.Fprintf(w, "  materials      %s the game's catalogue lacks, imported as they are (another plugin's items, or a typo):\n", count(n, "material"))
		for i, m := range r.UnknownMaterials {
			if i == maxUnknownNamed {
				fmt.Fprintf(w, "                 and %d more\n", n-maxUnknownNamed)
				break
			}
			fmt.Fprintf(w, "                 %s in %s, the first at %s\n", m.Key, count(m.Entries, "entry"), m.First)
		}
	}
	if r.Refused > 0 {
		fmt.Fprintf(w, "  refused        %s those rules refuse: not listed; each item is back in its seller's mailbox\n", count(r.Refused, "listing"))
	}
	if r.OverLimit > 0 {
		fmt.Fprintf(w, "  over limit     %s more listings than the limit of %d (the most: %d): they keep them, and list again once under it\n",
			map[bool]string{true: "1 seller has", false: fmt.Sprintf("%d sellers have", r.OverLimit)}[r.OverLimit == 1], r.Limit, r.MostListings)
	}
	fmt.Fprintf(w, "  expired        %s past that expiry, into their sellers' mailboxes\n", count(r.Expired, "listing"))
	fmt.Fprintf(w, "  mail           %s, %s in flight, %s owed to offline sellers\n",
		count(r.Mail, "mailbox entry"), count(r.Outbox, "expiry"), count(r.PendingReturns, "item"))
	fmt.Fprintf(w, "  transactions   %d as history", r.Transactions)
	if r.Flagged > 0 {
		fmt.Fprintf(w, ", %d of them flagged: left unfinished by the plugin, kept as FAILED, never replayed against money", r.Flagged)
	}
	fmt.Fprintln(w)
	if r.Ratings > 0 {
		fmt.Fprintf(w, "  ratings        %s of those sales by their buyers\n", count(r.Ratings, "rating"))
	}
	fmt.Fprintf(w, "  rounded        %s to cents (the plugin stored prices unrounded; its economy charged them rounded)\n", count(r.Rounded, "amount"))
	switch n := r.Count(NoteSkipped); n {
	case 0:
		fmt.Fprintln(w, "  skipped        no entry")
	case 1:
		fmt.Fprintln(w, "  skipped        1 entry, listed below with the reason")
	default:
		fmt.Fprintf(w, "  skipped        %d entries, each listed below with the reason\n", n)
	}
	if n := r.Count(NoteShortened); n > 0 {
		fmt.Fprintf(w, "  shortened      %s over Rynek's limits, display text or parts of an item (its original is kept whole)\n", count(n, "field"))
	}
	if n := r.Count(NoteCut); n > 0 {
		fmt.Fprintf(w, "  cut short      %s where the files were cut short or disagree: what is whole is imported (--partial); each is listed below\n", count(n, "place"))
	}
	if r.AlreadyThere > 0 {
		fmt.Fprintf(w, "  already there  %s (listings, mail and transactions) the market has from an earlier import\n", count(r.AlreadyThere, "entry"))
	}
	if r.Favorites+r.Alerts+r.FavoritesGone+r.KeptPlayerData > 0 {
		fmt.Fprintf(w, "  players' own   %s (%d more %s of listings that are not on the market), %s, each firing at its maxPrice per item",
			count(r.Favorites, "favourite"), r.FavoritesGone, map[bool]string{true: "was", false: "were"}[r.FavoritesGone == 1], count(r.Alerts, "price alert"))
		if r.KeptPlayerData > 0 {
			fmt.Fprintf(w, "; %s already in the market %s their own", count(r.KeptPlayerData, "player"),
				map[bool]string{true: "keeps", false: "keep"}[r.KeptPlayerData == 1])
		}
		fmt.Fprintln(w)
	}
	if r.SaleNotices > 0 {
		fmt.Fprintf(w, "  not imported   %s for offline sellers (Rynek shows sales in each player's history and notifications)\n", count(r.SaleNotices, "sale notice"))
	}
	if r.NoMarketData {
		fmt.Fprintf(w, "  note           the folder has no %s: no mailboxes or history (the plugin's first versions kept none)\n", MarketDataFile)
	}
}

// WriteNotes writes every note, one a line: where, what kind, what.
func (r *Report) WriteNotes(w io.Writer) {
	for _, n := range r.Notes {
		fmt.Fprintf(w, "%s: %s: %s\n", n.Where, n.Kind, n.Text)
	}
}

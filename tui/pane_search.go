package tui

import (
	"fmt"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/playertext"
)

// searchDebounce is how long typing must pause before a query runs.
const searchDebounce = 40 * time.Millisecond

// searchPane searches as you type. Each keystroke schedules a query after a
// short pause; the query runs off the event loop (reads are safe from any
// goroutine) and its result carries the sequence number of the text it
// answers, so a slow result for "a" can never overwrite the result for "ax"
// (the stock bubbles list filter does not tag its answers: typing "a", then
// "x", can leave the matches of "a" on screen under "ax").
type searchPane struct {
	input   textField
	table   *listingTable
	seq     int    // sequence of the latest text
	shown   int    // sequence of the latest answer
	text    string // text of the rows on screen: the last search answered
	err     error  // why the latest text was not searched (its answer had no rows)
	pending bool
	detail  bool
	keys    searchKeys
}

type searchKeys struct {
	queryKeys
	Focus, Blur, Detail, Back key.Binding
}

type searchDebounceMsg struct{ seq int }

type searchResultMsg struct {
	seq  int
	text string       // as typed
	q    market.Query // as asked: the words and the range filters
	page market.Page
	err  error
}

func newSearchPane() *searchPane {
	in := newTextField("search: ", `words, "łódź", a seller, #id, price:10..200, amount:64…`, market.MaxQueryTextBytes, 0)
	p := &searchPane{input: in, table: newListingTable(market.Query{}), keys: searchKeys{
		queryKeys: newQueryKeys(),
		Focus:     binding([]string{"/", "i"}, "/ i", "type"),
		Blur:      binding([]string{"esc", "enter", "down"}, "esc/enter/↓", "to the results"),
		Detail:    binding([]string{"enter"}, "enter", "details"),
		Back:      binding([]string{"esc"}, "esc", "close details"),
	}}
	return p
}

func (p *searchPane) Title() string { return "Search" }

func (p *searchPane) Help() []key.Binding {
	if p.input.Focused() {
		return []key.Binding{p.keys.Blur}
	}
	n := p.table.nav
	return append(append([]key.Binding{p.keys.Focus, p.keys.Detail, p.keys.Sort, p.keys.SortBack, p.keys.Cat, p.keys.CatAll},
		n.all()...), p.keys.Back)
}

func (p *searchPane) TextFocused() bool { return p.input.Focused() }

func (p *searchPane) Selected() (market.Listing, bool) { return p.table.selected() }

func (p *searchPane) rows(c *Common) int { return paneHeight(c.H) - 3 } // input, summary, table header

// FocusInput puts the cursor in the search box.
func (p *searchPane) FocusInput() tea.Cmd {
	p.detail = false
	return p.input.Focus()
}

func (p *searchPane) Refresh(c *Common) {
	p.input.SetWidth(max(c.W-12, 10))
	p.table.refresh(c, p.rows(c))
}

// query runs text off the event loop, with the table's sort and category,
// and reports the page tagged with seq.
func (p *searchPane) query(c *Common, seq int, text string) tea.Cmd {
	svc := c.Svc
	cfg := svc.Config()
	q, err := market.ParseQuery(text, cfg.MinPrice, cfg.MaxPrice)
	q.Sort, q.Category, q.Limit = p.table.q.Sort, p.table.q.Category, 3*p.rows(c)
	return func() tea.Msg {
		if err != nil {
			return searchResultMsg{seq: seq, text: text, err: err}
		}
		page, err := svc.Query(q)
		return searchResultMsg{seq: seq, text: text, q: q, page: page, err: err}
	}
}

func (p *searchPane) Update(c *Common, msg tea.Msg) tea.Cmd {
	h := p.rows(c)
	switch msg := msg.(type) {
	case searchDebounceMsg:
		if msg.seq == p.seq {
			return p.query(c, msg.seq, p.input.Value())
		}
		return nil
	case searchResultMsg:
		if msg.seq != p.seq {
			return nil // an older query's answer: the text has changed since
		}
		p.pending = false
		p.shown, p.err = msg.seq, msg.err
		if msg.err != nil {
			return nil // the rows of the last answer stay, and say so
		}
		p.text = msg.text
		t := p.table
		t.err = nil
		t.q.Text, t.q.MinPrice, t.q.MaxPrice, t.q.MinAmount, t.q.MaxAmount = msg.q.Text, msg.q.MinPrice, msg.q.MaxPrice, msg.q.MinAmount, msg.q.MaxAmount
		t.cursor, t.top = 0, 0
		t.total, t.win, t.winStart, t.took = msg.page.Total, msg.page.Listings, 0, msg.page.Took
		return nil
	case categoryMsg:
		q := p.table.q
		q.Category = msg.cat
		return p.table.trySetQuery(c, q, h)
	case tea.KeyPressMsg:
		if p.input.Focused() {
			if key.Matches(msg, p.keys.Blur) {
				p.input.Blur()
				return nil
			}
			return p.edit(msg)
		}
		switch {
		case key.Matches(msg, p.keys.Focus):
			return p.FocusInput()
		case key.Matches(msg, p.keys.Detail):
			p.detail = !p.detail
			return nil
		case key.Matches(msg, p.keys.Back) && p.detail:
			p.detail = false
			return nil
		}
		if cmd, ok := p.table.queryKey(c, msg, p.keys.queryKeys, h); ok {
			return cmd
		}
	case tea.PasteMsg:
		if p.input.Focused() {
			return p.edit(msg)
		}
	case tea.MouseClickMsg:
		if msg.Y == paneTop {
			return p.FocusInput()
		}
	}
	p.table.update(c, msg, h, paneTop+3)
	return nil
}

// edit passes a key or a paste to the search box; a change of the text
// schedules its query after the debounce.
func (p *searchPane) edit(msg tea.Msg) tea.Cmd {
	cmd, changed := p.input.Update(msg)
	if !changed {
		return cmd
	}
	p.seq++
	p.pending = true
	seq := p.seq
	return tea.Batch(cmd, tea.Tick(searchDebounce, func(time.Time) tea.Msg { return searchDebounceMsg{seq} }))
}

func (p *searchPane) View(c *Common, w, h int) string {
	s := c.Styles
	t := p.table
	input := p.input.View(s)
	if !p.input.Focused() {
		input = s.Dim.Render(input)
	}
	// Until the input has the focus, keys are the pane's (o sorts, 1-6
	// switch panes): the hint says how to start typing.
	hint := "press / to search: "
	if p.input.Focused() {
		hint = "type to search: "
	}
	summary := s.Dim.Render(hint + "words match names, lore, enchantments and sellers; #id finds one listing; price:lo..hi, amount:lo..hi filter")
	if p.shown > 0 || p.text != "" {
		noun := "matches"
		if t.total == 1 {
			noun = "match"
		}
		found := fmt.Sprintf("%s %s for %q", count(t.total), noun, playertext.Sanitize(p.text))
		summary = fmt.Sprintf("%s in %s · sort: %s · category: %s", found, t.took.Round(time.Microsecond), t.q.Sort, t.q.Category)
		if p.err != nil {
			// The count belongs to the rows below, not to the text typed.
			summary = s.Err.Render("✗ "+p.err.Error()) + s.Dim.Render(" · below, still: "+found)
		}
		if p.pending {
			summary += s.Dim.Render(" · typing…")
		}
	}
	head := fit(input, w) + "\n" + fit(summary, w)
	if p.detail {
		if l, ok := t.selected(); ok {
			return head + "\n" + listingDetail(c, l, w, h-2)
		}
	}
	return head + "\n" + t.view(c, w, h-2)
}

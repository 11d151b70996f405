package tui

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/google/uuid"
	"github.com/rynek/rynek/market"
)

// textPrompt asks for one line of text and answers with the action its
// owner makes of it: the jump prompt, the Transactions filter.
type textPrompt struct {
	dialogBase
	title, hint string
	input       textField
	answer      func(text string) action
	done        key.Binding
}

func newTextPrompt(title, prompt, placeholder, hint, doneHelp string, answer func(string) action) *textPrompt {
	in := newTextField(prompt, placeholder, 64, 44)
	in.Focus()
	return &textPrompt{dialogBase: newDialogBase(typing), title: title, hint: hint, input: in, answer: answer,
		done: binding([]string{"enter"}, "enter", doneHelp)}
}

// newJumpPrompt asks where to go: "#id" (or a number) opens a listing, a
// transaction id opens the transaction, a player's name makes them the
// acting player on the Seller pane.
func newJumpPrompt() *textPrompt {
	return newTextPrompt("Jump", "jump to: ", "#id, a transaction id or a player name",
		"#3000 · 019a…-… (y copies an id) · Kowalski", "go", func(text string) action {
			if text == "" {
				return nil
			}
			return actJump{text: text}
		})
}

func (d *textPrompt) Help() []key.Binding {
	return []key.Binding{d.done, d.closeKey()}
}

func (d *textPrompt) Update(_ *Common, msg tea.Msg) (action, bool) {
	k, isKey := msg.(tea.KeyPressMsg)
	switch {
	case d.closes(msg):
		return nil, true
	case isKey && key.Matches(k, d.done):
		return d.answer(strings.TrimSpace(d.input.Value())), true
	}
	d.typeInto(&d.input, msg)
	return nil, false
}

func (d *textPrompt) View(c *Common, w, _ int) string {
	return box(c, c.Styles.Title.Render(d.title)+"\n"+d.input.View(c.Styles)+"\n"+c.Styles.Dim.Render(d.hint), w)
}

// jump goes where the text says; a refusal says why.
func (m *Model) jump(text string) {
	svc := m.c.Svc
	if id, err := strconv.Atoi(strings.TrimPrefix(text, "#")); err == nil {
		m.run(actOpen{listing: market.Listing{ID: id}})
		return
	}
	if _, err := uuid.Parse(text); err == nil {
		m.run(actOpen{txID: text})
		return
	}
	p, err := svc.PlayerByName(text)
	if err != nil {
		if len(text) == 8 {
			err = fmt.Errorf("%w (a transaction is found by its whole id: y copies it from a row)", err)
		}
		m.fail(err)
		return
	}
	m.run(actPickPlayer{p: p})
	for i, pn := range m.panes {
		if _, ok := pn.(actorViewer); ok {
			m.switchTo(i)
			return
		}
	}
}

// open shows a listing or a transaction in a detail dialog. A listing read
// fresh from the market if it is still active; otherwise as it was last
// seen (in an event), marked so.
func (m *Model) open(a actOpen) {
	c := m.c
	if a.order != 0 {
		if err := m.openOrder(a.order); err != nil {
			m.fail(err)
		}
		return
	}
	if a.txID != "" {
		t, err := c.Svc.GetTransaction(a.txID)
		if err != nil {
			m.fail(err)
			return
		}
		m.dialog = newPager("Transaction "+shortID(t.ID), txLines(c, t))
		return
	}
	l, err := c.Svc.GetListing(a.listing.ID)
	switch {
	case err == nil:
		m.dialog = newPager(fmt.Sprintf("Listing #%d", l.ID), listingLines(c, l))
	case errors.Is(err, market.ErrUnknownListing) && a.hasList:
		lines := append([]string{c.Styles.Warn.Render("no longer active: shown as it was in the event")}, listingLines(c, a.listing)...)
		m.dialog = newPager(fmt.Sprintf("Listing #%d (gone)", a.listing.ID), lines)
	case errors.Is(err, market.ErrUnknownListing) && m.openOrder(a.listing.ID) == nil:
		// Listings and buy orders share one sequence of numbers: #id is
		// the order's.
	default:
		m.fail(err)
	}
}

package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/rynek/rynek/market"
	"github.com/rynek/rynek/market/playertext"
)

// actRate rates a purchase as its buyer.
type actRate struct {
	tx    market.Transaction
	stars int
}

// rateDialog asks the buyer's stars for a completed purchase: a digit rates.
type rateDialog struct {
	dialogBase
	tx    market.Transaction
	stars key.Binding
}

func newRateDialog(t market.Transaction) (*rateDialog, error) {
	if t.State != market.StateCompleted {
		return nil, fmt.Errorf("only a COMPLETED purchase can be rated; %s is %s", shortID(t.ID), t.State)
	}
	if t.Rating > 0 {
		return nil, fmt.Errorf("%s rated %s already: %s", playertext.Sanitize(t.BuyerName), shortID(t.ID), strings.Repeat("★", t.Rating))
	}
	return &rateDialog{dialogBase: newDialogBase(choosing), tx: t, stars: binding([]string{"1", "2", "3", "4", "5"}, "1-5", "stars")}, nil
}

func (d *rateDialog) Help() []key.Binding { return []key.Binding{d.stars, d.closeKey()} }

func (d *rateDialog) Update(_ *Common, msg tea.Msg) (action, bool) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil, false
	}
	switch {
	case d.closes(k):
		return nil, true
	case key.Matches(k, d.stars):
		return actRate{tx: d.tx, stars: int(k.String()[0] - '0')}, true
	}
	return nil, false
}

func (d *rateDialog) View(c *Common, w, _ int) string {
	s := c.Styles
	t := d.tx
	var b strings.Builder
	b.WriteString(s.Title.Render("Rate as the buyer " + playertext.Sanitize(t.BuyerName)))
	b.WriteString("\n" + fmt.Sprintf("%s: %s ×%d from %s for %s", shortID(t.ID), RenderMC(itemName(t.Item), lipglossPlain), t.Item.Amount,
		playertext.Sanitize(t.SellerName), money(t.Price)))
	b.WriteString("\n\n" + s.Dim.Render("1 ★ · 2 ★★ · 3 ★★★ · 4 ★★★★ · 5 ★★★★★ — once; it counts in the seller's rating"))
	return box(c, b.String(), w)
}

// rate runs actRate on the main thread.
func (m *Model) rate(a actRate) error {
	t, err := m.c.Svc.Rate(a.tx.Buyer, a.tx.ID, a.stars)
	if err != nil {
		m.fail(err)
		return err
	}
	m.changed = true
	m.setStatus(statusMsg{text: fmt.Sprintf("%s rated %s %s (seller %s)", playertext.Sanitize(t.BuyerName), shortID(t.ID),
		strings.Repeat("★", t.Rating), playertext.Sanitize(t.SellerName))})
	return nil
}

package tui

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/rynek/rynek/market"
)

// action is what a key or a dialog asks the root model to do. Actions run in
// Update, so every market mutation happens on the main thread.
type action interface{}

type (
	actSell struct {
		stack market.ItemStack
		price float64
	}
	actBuy struct {
		id     int
		failAt market.State
	}
	actRemove struct {
		id    int
		admin bool
	}
	actForceExpire struct{ id int }
	actPickPlayer  struct{ p market.Player }
)

// globalKeys are the console-wide bindings.
type globalKeys struct {
	Next, Prev, Pane1, Pane2, Pane3, Pane4, Pane5, Pane6, Help, Quit   key.Binding
	Player, Sell, Buy, Remove, AdminRemove, ForceExpire, Claim, Backup key.Binding
	Toggle, Background, Hour, Day, Bots, Faster, Slower                key.Binding
}

func newGlobalKeys() globalKeys {
	b := func(keys []string, k, desc string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(k, desc))
	}
	return globalKeys{
		Next:  b([]string{"tab"}, "tab", "next pane"),
		Prev:  b([]string{"shift+tab"}, "shift+tab", "previous pane"),
		Pane1: b([]string{"1"}, "1", "Listings"), Pane2: b([]string{"2", "/"}, "2 or /", "Search"),
		Pane3: b([]string{"3"}, "3", "Seller"), Pane4: b([]string{"4"}, "4", "Stats"),
		Pane5: b([]string{"5"}, "5", "Transactions"), Pane6: b([]string{"6"}, "6", "Events"),
		Help: b([]string{"?"}, "?", "help"), Quit: b([]string{"q"}, "q", "quit"),

		Player:      b([]string{"p"}, "p", "act as player…"),
		Sell:        b([]string{"s"}, "s", "sell from inventory"),
		Buy:         b([]string{"b"}, "b", "buy (1-6 in the dialog arms a failure)"),
		Remove:      b([]string{"x"}, "x", "remove as owner → removed"),
		AdminRemove: b([]string{"X"}, "X", "remove as admin → admin-removed"),
		ForceExpire: b([]string{"F"}, "F", "force-expire (admin) → force-expire"),
		Claim:       b([]string{"m"}, "m", "claim the acting player's mailbox"),
		Backup:      b([]string{"B"}, "B", "back up the market to a new file beside it"),

		Toggle:     b([]string{"D"}, "D", "QA: disable / enable the service"),
		Background: b([]string{"T"}, "T", "QA: mutate from a background goroutine"),
		Hour:       b([]string{"]"}, "]", "QA: advance the clock 1 hour"),
		Day:        b([]string{"}"}, "}", "QA: advance the clock 1 day"),
		Bots:       b([]string{"R"}, "R", "QA: start / stop traffic bots"),
		Faster:     b([]string{"+", "="}, "+", "QA: bots faster"),
		Slower:     b([]string{"-"}, "-", "QA: bots slower"),
	}
}

func (k globalKeys) short() []key.Binding {
	return []key.Binding{k.Sell, k.Buy, k.Player, k.Help, k.Quit}
}
func (k globalKeys) panes() []key.Binding {
	return []key.Binding{k.Pane1, k.Pane2, k.Pane3, k.Pane4, k.Pane5, k.Pane6, k.Next, k.Prev, k.Help, k.Quit}
}
func (k globalKeys) actions() []key.Binding {
	return []key.Binding{k.Player, k.Sell, k.Buy, k.Remove, k.AdminRemove, k.ForceExpire, k.Claim, k.Backup}
}
func (k globalKeys) qa() []key.Binding {
	return []key.Binding{k.Toggle, k.Background, k.Hour, k.Day, k.Bots, k.Faster, k.Slower}
}

// globalKey handles a console-wide key; ok is false when the key is the
// pane's.
func (m *Model) globalKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	c, k := m.c, m.keys
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit, true
	case key.Matches(msg, k.Help):
		m.showHelp = true
	case key.Matches(msg, k.Next):
		m.switchTo((m.active + 1) % len(m.panes))
	case key.Matches(msg, k.Prev):
		m.switchTo((m.active + len(m.panes) - 1) % len(m.panes))
	case key.Matches(msg, k.Pane1, k.Pane2, k.Pane3, k.Pane4, k.Pane5, k.Pane6):
		i := int(msg.String()[0] - '1')
		if msg.String() == "/" {
			i = 1
		}
		m.switchTo(i)
		if sp, ok := m.panes[i].(*searchPane); ok {
			return sp.focusInput(), true
		}
	case key.Matches(msg, k.Player):
		m.dialog = newPlayerPicker(c)
	case key.Matches(msg, k.Sell):
		st, err := c.Svc.GetPlayer(c.Actor.ID)
		if err != nil {
			m.fail(err)
			return nil, true
		}
		m.dialog = newSellDialog(c, st)
	case key.Matches(msg, k.Buy, k.Remove, k.AdminRemove, k.ForceExpire):
		l, ok := m.panes[m.active].Selected()
		if !ok {
			m.status = statusMsg{text: "select a listing first (Listings, Search or Seller pane)", err: true}
			return nil, true
		}
		m.confirmFor(msg, l)
	case key.Matches(msg, k.Claim):
		n, err := c.Svc.ClaimAll(c.Actor.ID)
		if err != nil {
			m.fail(err)
		} else {
			m.status = statusMsg{text: fmt.Sprintf("%s claimed %d mailbox item(s)", playerName(c.Actor), n)}
			m.changed = true
			m.settle()
		}
	case key.Matches(msg, k.Backup):
		return m.startBackup(), true
	case key.Matches(msg, k.Toggle):
		m.toggleService()
	case key.Matches(msg, k.Background):
		return m.backgroundMutation(), true
	case key.Matches(msg, k.Hour, k.Day):
		m.advance(msg)
	case key.Matches(msg, k.Bots):
		m.bots.on = !m.bots.on
		state := "stopped"
		if m.bots.on {
			state = fmt.Sprintf("started at %d actions/s", m.bots.rate)
		}
		m.status = statusMsg{text: "traffic bots " + state, qa: true}
	case key.Matches(msg, k.Faster):
		m.bots.rate = min(m.bots.rate*2, 5000)
		m.status = statusMsg{text: fmt.Sprintf("bots: %d actions/s", m.bots.rate), qa: true}
	case key.Matches(msg, k.Slower):
		m.bots.rate = max(m.bots.rate/2, 1)
		m.status = statusMsg{text: fmt.Sprintf("bots: %d actions/s", m.bots.rate), qa: true}
	default:
		return nil, false
	}
	return nil, true
}

// confirmFor opens the confirmation of a buy, remove or force-expire.
func (m *Model) confirmFor(msg tea.KeyPressMsg, l market.Listing) {
	c, k := m.c, m.keys
	what := fmt.Sprintf("#%d %s ×%d by %s for %s", l.ID, RenderMC(itemName(l.Item), lipglossPlain), l.Item.Amount,
		Sanitize(l.SellerName), c.Styles.Price.Render(money(l.Price)))
	switch {
	case key.Matches(msg, k.Buy):
		m.dialog = newConfirm(c, "Buy as "+playerName(c.Actor)+"?", actBuy{id: l.ID}, true, what)
	case key.Matches(msg, k.Remove):
		m.dialog = newConfirm(c, "Remove as its owner "+Sanitize(l.SellerName)+"?", actRemove{id: l.ID}, false, what,
			c.Styles.Dim.Render("publishes ListingRemovedEvent, reason \"removed\""))
	case key.Matches(msg, k.AdminRemove):
		m.dialog = newConfirm(c, "Remove as admin "+playerName(c.Admin)+"?", actRemove{id: l.ID, admin: true}, false, what,
			c.Styles.Dim.Render("publishes ListingRemovedEvent, reason \"admin-removed\""))
	case key.Matches(msg, k.ForceExpire):
		m.dialog = newConfirm(c, "Force-expire as admin "+playerName(c.Admin)+"?", actForceExpire{id: l.ID}, false, what,
			c.Styles.Dim.Render("publishes ListingRemovedEvent, reason \"force-expire\""))
	}
}

// fail shows an error's exact text.
func (m *Model) fail(err error) { m.status = statusMsg{text: err.Error(), err: true} }

// run performs an action on the main thread; what it changed is on screen
// at once, not at the next tick.
func (m *Model) run(a action) tea.Cmd {
	defer m.settle()
	c := m.c
	switch a := a.(type) {
	case actPickPlayer:
		c.Actor = a.p
		m.status = statusMsg{text: "acting as " + playerName(a.p)}
		m.refreshAll()
	case actSell:
		l, err := c.Svc.SellItem(c.Actor, a.stack, a.price)
		if err != nil {
			m.fail(err)
			return nil
		}
		m.changed = true
		m.status = statusMsg{text: fmt.Sprintf("listed #%d: %s ×%d for %s → ListingCreatedEvent", l.ID,
			Sanitize(market.StripColors(itemName(l.Item))), l.Item.Amount, money(l.Price))}
	case actBuy:
		if a.failAt != "" {
			if err := c.Svc.ArmFailure(a.failAt); err != nil {
				m.fail(err)
				return nil
			}
		}
		tx, err := c.Svc.Buy(c.Actor, a.id)
		_ = c.Svc.ArmFailure("") // a refused purchase does not consume the arming; never carry it over
		m.changed = true
		switch {
		case err != nil && tx.ID == "":
			m.fail(err)
		case err != nil:
			m.status = statusMsg{text: fmt.Sprintf("transaction %s ended %s (%s): %s", shortID(tx.ID), tx.State, tx.ErrorCode, err), err: true}
		default:
			where := "inventory"
			if tx.DeliveredToMailbox {
				where = "mailbox (inventory full)"
			}
			m.status = statusMsg{text: fmt.Sprintf("bought #%d: transaction %s COMPLETED, paid %s, fee %s, item to %s → TransactionCompletedEvent",
				a.id, shortID(tx.ID), money(tx.Price), money(tx.Fee), where)}
		}
	case actRemove:
		actor, reason := c.Admin, market.ReasonAdminRemoved
		if !a.admin {
			l, err := c.Svc.GetListing(a.id)
			if err != nil {
				m.fail(err)
				return nil
			}
			actor, reason = market.Player{ID: l.Seller, Name: l.SellerName}, market.ReasonRemoved
		}
		if err := c.Svc.RemoveListing(a.id, actor); err != nil {
			m.fail(err)
			return nil
		}
		m.changed = true
		m.status = statusMsg{text: fmt.Sprintf("removed #%d → ListingRemovedEvent reason %q", a.id, reason)}
	case actForceExpire:
		if err := c.Svc.ForceExpire(a.id, c.Admin); err != nil {
			m.fail(err)
			return nil
		}
		m.changed = true
		m.status = statusMsg{text: fmt.Sprintf("force-expired #%d → ListingRemovedEvent reason %q", a.id, market.ReasonForceExpire)}
	}
	return nil
}

// settle drains events and refreshes the screen if the market changed.
func (m *Model) settle() {
	if m.changed {
		m.changed = false
		m.log.drain()
		m.refreshAll()
	}
}

// toggleService disables or enables the service (QA) and shows what an
// operation answers now.
func (m *Model) toggleService() {
	svc := m.c.Svc
	if svc.IsReady() {
		svc.Disable()
		_, err := svc.GetActiveListingsCount()
		text := "service disabled"
		if err != nil {
			text += "; every operation now answers: " + err.Error()
		}
		m.status = statusMsg{text: text, qa: true}
	} else {
		if err := svc.Enable(); err != nil {
			m.fail(err)
			return
		}
		m.status = statusMsg{text: "service enabled", qa: true}
	}
	m.refreshAll()
}

// advance moves the QA clock; the expiry timer runs at once.
func (m *Model) advance(msg tea.KeyPressMsg) {
	c := m.c
	if c.Clock == nil {
		m.status = statusMsg{text: "this console's clock cannot be moved", err: true}
		return
	}
	d := time.Hour
	if key.Matches(msg, m.keys.Day) {
		d = 24 * time.Hour
	}
	c.Clock.Advance(d)
	c.NowUnix = c.Svc.Now().Unix()
	n, more, err := m.sweep()
	m.swept = 0
	if more {
		m.swept = n // the tick carries on with the rest and counts on from here
	}
	switch {
	case err != nil:
		m.fail(err)
	case n > 0:
		text := fmt.Sprintf("clock +%s: %d listings expired by timer: no event, by contract (items went to their sellers' mailboxes)", shortDur(d), n)
		if more {
			text += " · sweeping…"
		}
		m.status = statusMsg{text: text, qa: true}
	default:
		m.status = statusMsg{text: fmt.Sprintf("clock +%s (now +%s): nothing expired yet", shortDur(d), shortDur(c.Clock.Offset())), qa: true}
	}
	m.refreshAll()
}

// fingerprint is a cheap summary of the market, to show that a refused
// background mutation changed nothing.
type fingerprint struct {
	listings int
	volume   float64
	balance  float64
	items    int
	events   uint64
}

func (m *Model) fingerprint() fingerprint {
	svc := m.c.Svc
	var f fingerprint
	f.listings, _ = svc.GetActiveListingsCount()
	f.volume, _ = svc.GetMarketVolume()
	if st, err := svc.GetPlayer(m.c.Actor.ID); err == nil {
		f.balance = st.Balance
		for _, s := range st.Inventory {
			if s != nil {
				f.items += s.Amount
			}
		}
	}
	f.events = m.log.lastSeq + uint64(len(m.log.pending))
	return f
}

type bgMutationMsg struct {
	err    error
	before fingerprint
}

// backgroundMutation tries SellItem and RemoveListing from a goroutine that is
// not the main thread (QA): both must fail with the contract's text and
// change nothing.
func (m *Model) backgroundMutation() tea.Cmd {
	c := m.c
	before := m.fingerprint()
	actor := c.Actor
	var stack market.ItemStack
	if st, err := c.Svc.GetPlayer(actor.ID); err == nil {
		for _, s := range st.Inventory {
			if s != nil {
				stack = *s
				break
			}
		}
	}
	target, _ := m.panes[m.active].Selected()
	svc := c.Svc
	return func() tea.Msg {
		// This runs in its own goroutine, not on the event loop.
		_, err := svc.SellItem(actor, stack, 1)
		if target.ID != 0 {
			if err2 := svc.RemoveListing(target.ID, actor); err == nil {
				err = err2
			}
		}
		return bgMutationMsg{err: err, before: before}
	}
}

func (m *Model) onBackgroundResult(msg bgMutationMsg) {
	after := m.fingerprint()
	unchanged := "nothing changed"
	if after != msg.before {
		unchanged = fmt.Sprintf("STATE CHANGED: %+v → %+v", msg.before, after)
	}
	switch {
	case msg.err == nil:
		m.status = statusMsg{text: "background mutation was accepted: the main-thread check failed! " + unchanged, err: true}
	case errors.Is(msg.err, market.ErrNotMainThread) || errors.Is(msg.err, market.ErrNotReady):
		m.status = statusMsg{text: "background goroutine: " + msg.err.Error() + " · " + unchanged, qa: true}
	default:
		m.status = statusMsg{text: "background goroutine: " + msg.err.Error() + " · " + unchanged, err: true}
	}
}

// bots generate traffic on the main thread: each tick they perform rate×tick
// random sells, purchases and removals as random players.
type bots struct {
	on      bool
	rate    int
	carry   float64
	rng     *rand.Rand
	players []market.Player
	ok, bad int
	changed bool
}

func newBots(svc *market.Service) bots {
	ps, _ := svc.Players()
	return bots{rate: 20, rng: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1)), players: ps}
}

func (b *bots) step(c *Common, tick time.Duration) {
	if !b.on || len(b.players) < 2 {
		return
	}
	b.carry += float64(b.rate) * tick.Seconds()
	n := int(b.carry)
	b.carry -= float64(n)
	for i := 0; i < n; i++ {
		if b.one(c) == nil {
			b.ok++
		} else {
			b.bad++
		}
	}
	if n > 0 {
		b.changed = true
	}
}

func (b *bots) one(c *Common) error {
	svc := c.Svc
	p := b.players[b.rng.IntN(len(b.players))]
	switch r := b.rng.IntN(100); {
	case r < 50:
		st, err := svc.GetPlayer(p.ID)
		if err != nil {
			return err
		}
		var stacks []market.ItemStack
		for _, s := range st.Inventory {
			if s != nil {
				stacks = append(stacks, *s)
			}
		}
		if len(stacks) == 0 {
			_, err := svc.ClaimAll(p.ID)
			return err
		}
		s := stacks[b.rng.IntN(len(stacks))]
		price := 10.0
		if info, ok := market.LookupMaterial(s.Material); ok {
			price = float64(info.BasePrice) * float64(s.Amount) / 100 * (0.7 + 0.7*b.rng.Float64())
		}
		cfg := svc.Config()
		price = float64(int64(max(min(price, cfg.MaxPrice.Float()), cfg.MinPrice.Float())*100)) / 100
		_, err = svc.SellItem(p, s, price)
		return err
	case r < 85:
		page, err := svc.Query(market.Query{Sort: market.SortCheapest, Offset: b.rng.IntN(200), Limit: 1})
		if err != nil || len(page.Listings) == 0 {
			return err
		}
		_, err = svc.Buy(p, page.Listings[0].ID)
		return err
	default:
		page, err := svc.Query(market.Query{Seller: p.ID, Limit: 1})
		if err != nil || len(page.Listings) == 0 {
			return err
		}
		return svc.RemoveListing(page.Listings[0].ID, p)
	}
}

// startBackup writes a consistent copy of the market next to it, off the
// main thread: the store copies from a read snapshot while the market goes
// on. The result comes back as a status message.
func (m *Model) startBackup() tea.Cmd {
	if m.backup == nil {
		m.status = statusMsg{text: "this console was started without a store to back up", err: true}
		return nil
	}
	dest := m.backupPath(time.Now())
	m.status = statusMsg{text: "backing up to " + dest + "…"}
	backup := m.backup
	return func() tea.Msg {
		start := time.Now()
		if err := backup(dest); err != nil {
			return statusMsg{text: "backup failed: " + err.Error(), err: true}
		}
		return statusMsg{text: fmt.Sprintf("backed up to %s in %s: open it with --db to check it", dest, time.Since(start).Round(time.Millisecond))}
	}
}

// backupPath names a backup after the database and the time.
func (m *Model) backupPath(now time.Time) string {
	base := strings.TrimSuffix(filepath.Base(m.backupOf), filepath.Ext(m.backupOf))
	return filepath.Join(filepath.Dir(m.backupOf), fmt.Sprintf("%s-backup-%s.db", base, now.UTC().Format("20060102-150405")))
}

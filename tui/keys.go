package tui

import (
	"charm.land/bubbles/v2/key"
)

// binding is a key.Binding with its help: every key of the console is one,
// so that help lists it.
func binding(keys []string, helpKey, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(helpKey, desc))
}

// globalKeys are the console-wide bindings: panes, actions on the selected
// listing, and QA controls.
type globalKeys struct {
	Next, Prev, Pane1, Pane2, Pane3, Pane4, Pane5, Pane6, Pane7, Pane8, Search, Help, Quit, Interrupt key.Binding
	Jump, Copy, StatusLog                                                                             key.Binding

	Player, AddPlayer, Sell, Buy, Remove, AdminRemove, ForceExpire, RemoveAsActor, ExpireAsActor, Claim, Relist, Favorite, Alerts, Economy, Backup, Reload key.Binding

	Toggle, Background, Hour, Day, EndAuction, Bots, Faster, Slower key.Binding
}

func newGlobalKeys() globalKeys {
	b := binding
	return globalKeys{
		Next:  b([]string{"tab"}, "tab", "next pane"),
		Prev:  b([]string{"shift+tab"}, "shift+tab", "previous pane"),
		Pane1: b([]string{"1"}, "1", "Listings"), Pane2: b([]string{"2"}, "2", "Search"),
		Pane3: b([]string{"3"}, "3", "Seller"), Pane4: b([]string{"4"}, "4", "Stats"),
		Pane5: b([]string{"5"}, "5", "Transactions"), Pane6: b([]string{"6"}, "6", "Events"),
		Pane7:     b([]string{"7"}, "7", "Orders"),
		Pane8:     b([]string{"8"}, "8", "Webhooks"),
		Search:    b([]string{"/"}, "/", "type a search"),
		Help:      b([]string{"?"}, "?", "all keys"),
		Quit:      b([]string{"q", "ctrl+c"}, "q", "quit"),
		Interrupt: b([]string{"ctrl+c"}, "ctrl+c", "quit, even while typing or in a dialog"),
		Jump:      b([]string{":", "ctrl+k"}, ": ctrl+k", "jump to #id, transaction or player"),
		Copy:      b([]string{"y"}, "y", "copy the selected id (OSC 52)"),
		StatusLog: b([]string{"L"}, "L", "status history"),

		Player:        b([]string{"p"}, "p", "act as player…"),
		AddPlayer:     b([]string{"A"}, "A", "add a player… (a new market has none)"),
		Sell:          b([]string{"s"}, "s", "sell from inventory"),
		Buy:           b([]string{"b"}, "b", "buy, or bid on an auction (1-6 in the buy dialog arms a failure)"),
		Remove:        b([]string{"x"}, "x", "remove as its owner → removed"),
		AdminRemove:   b([]string{"X"}, "X", "remove as admin → admin-removed"),
		ForceExpire:   b([]string{"F"}, "F", "force-expire as admin → force-expire"),
		RemoveAsActor: b([]string{"r"}, "r", "remove as the acting player (NOT_OWNER unless theirs)"),
		ExpireAsActor: b([]string{"E"}, "E", "force-expire as the acting player (FORBIDDEN unless admin)"),
		Claim:         b([]string{"m"}, "m", "claim the acting player's mailbox"),
		Relist:        b([]string{"M"}, "M", "relist a mailbox item at its previous price…"),
		Favorite:      b([]string{"h"}, "h", "favourite / unfavourite the selected listing (acting player)"),
		Alerts:        b([]string{"P"}, "P", "the acting player's price alerts…"),
		Economy:       b([]string{"$"}, "$", "admin: deposit, withdraw, give or take an item…"),
		Backup:        b([]string{"B"}, "B", "back up the market to a new file beside it"),
		Reload:        b([]string{"ctrl+r"}, "ctrl+r", "reload the rules file (refused while a purchase is in flight)"),

		Toggle:     b([]string{"D"}, "D", "QA: disable / enable the service"),
		Background: b([]string{"T"}, "T", "QA: mutate from a background goroutine"),
		Hour:       b([]string{"]"}, "]", "QA: advance the clock 1 hour"),
		Day:        b([]string{"}"}, "}", "QA: advance the clock 1 day"),
		EndAuction: b([]string{")"}, ")", "QA: advance the clock to the selected auction's end"),
		Bots:       b([]string{"R"}, "R", "QA: start / stop traffic bots"),
		Faster:     b([]string{"+", "="}, "+", "QA: bots faster"),
		Slower:     b([]string{"-"}, "-", "QA: bots slower"),
	}
}

// short is what the footer offers after the pane's keys, unless a text box
// has the cursor (then ? and q are text).
func (k globalKeys) short() []key.Binding { return []key.Binding{k.Help, k.Quit} }

func (k globalKeys) panes() []key.Binding {
	return []key.Binding{k.Pane1, k.Pane2, k.Pane3, k.Pane4, k.Pane5, k.Pane6, k.Pane7, k.Pane8, k.Next, k.Prev, k.Search,
		k.Jump, k.Copy, k.StatusLog, k.Help, k.Quit, k.Interrupt}
}

func (k globalKeys) actions() []key.Binding {
	return []key.Binding{k.Player, k.AddPlayer, k.Sell, k.Buy, k.Remove, k.AdminRemove, k.ForceExpire, k.RemoveAsActor,
		k.ExpireAsActor, k.Claim, k.Relist, k.Favorite, k.Alerts, k.Economy, k.Backup, k.Reload}
}

func (k globalKeys) qa() []key.Binding {
	return []key.Binding{k.Toggle, k.Background, k.Hour, k.Day, k.EndAuction, k.Bots, k.Faster, k.Slower}
}

// dialogKeys are the keys dialogs share.
type dialogKeys struct {
	Confirm, Cancel, Quit, Up, Down, NextField, PrevField, Arm, Disarm, Enter key.Binding
}

func newDialogKeys() dialogKeys {
	b := binding
	return dialogKeys{
		Confirm:   b([]string{"y", "enter"}, "y/enter", "confirm"),
		Cancel:    b([]string{"n", "esc", "q"}, "n/esc", "cancel"),
		Quit:      b([]string{"esc"}, "esc", "cancel"), // where letters are text
		Up:        b([]string{"up"}, "↑", "previous"),
		Down:      b([]string{"down"}, "↓", "next"),
		NextField: b([]string{"tab"}, "tab", "next field"),
		PrevField: b([]string{"shift+tab"}, "shift+tab", "previous field"),
		Arm:       b([]string{"1", "2", "3", "4", "5", "6"}, "1-6", "QA: fail at that step"),
		Disarm:    b([]string{"0"}, "0", "QA: no failure"),
		Enter:     b([]string{"enter"}, "enter", "choose"),
	}
}

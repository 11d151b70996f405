// Package tui is Rynek's console: a Bubble Tea v2 program whose update loop
// is the market's main server thread. Every mutation of the market runs
// inside Update; panes only read.
//
// Its files are named by kind:
//
//   - model.go and the root's other files (header.go, tabs.go, status.go, keys.go,
//     actions.go, qa.go, bots.go, eventlog.go, storewatch.go): the root
//     model routes each message to the component that asked for it, runs
//     every action on the main thread and lays the screen out;
//   - pane.go and pane_*.go: the pane interface and the panes, which
//     read the market and ask the root for what changes it;
//   - dialog.go and dialog_*.go: the dialog interface, dialogBase, which
//     every dialog but the pager embeds, and the dialogs, each beside the
//     action it asks for;
//   - widget_*.go: what panes and dialogs are made of (the virtualized
//     tables, the text field, the price chart);
//   - common.go, format.go, text.go: what all of them share (the Common
//     struct and the styles; money, counts and times; cell widths and
//     player text).
//
// The root knows a pane only through the pane interface and the optional
// interfaces beside it (pane.go), and a dialog only through the dialog
// interface. The console imports the market and the helpers below the
// application (playertext, wire, traffic), never the HTTP interface or the
// commands; only package main and the comparison suite's tests import it.
package tui

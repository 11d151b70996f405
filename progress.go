package main

import (
	"fmt"
	"io"
	"os"
)

// progressLine shows a long step's progress on one line of a terminal,
// rewritten in place. Written to a file or a pipe (a server's log) only the
// final line of each step appears: a log of carriage returns reads as one
// line of a hundred percentages.
type progressLine struct {
	w        io.Writer
	terminal bool
	shown    bool // a progress line is on the screen, unfinished
}

func (l *progressLine) progress(format string, args ...any) {
	if l.terminal {
		fmt.Fprintf(l.w, "\r\x1b[K"+format, args...)
		l.shown = true
	}
}

// final replaces the progress with the step's last word.
func (l *progressLine) final(format string, args ...any) {
	l.clear()
	fmt.Fprintf(l.w, format+"\n", args...)
}

// clear takes the progress off the screen.
func (l *progressLine) clear() {
	if l.shown {
		io.WriteString(l.w, "\r\x1b[K")
		l.shown = false
	}
}

// end finishes an unfinished progress line, so what follows starts on a
// line of its own.
func (l *progressLine) end() {
	if l.shown {
		io.WriteString(l.w, "\n")
		l.shown = false
	}
}

// isTerminal tells whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

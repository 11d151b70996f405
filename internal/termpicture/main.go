// Command termpicture draws a terminal screen as an SVG picture: it reads
// what `tmux capture-pane -e -p` prints (text with SGR colour sequences) and
// writes an SVG of the same cells, colours, bold and reverse video. The
// README's picture of the console is made with it from the real program's
// screen (internal/termpicture/console.sh), so the picture shows what users get.
//
// An SVG of text rather than a bitmap: it stays sharp at any size, is a few
// tens of kilobytes, and the viewer's monospace font draws every glyph the
// console uses (✦, Polish letters, box drawing), falling back per glyph.
//
// Usage: termpicture [-title TEXT] < screen.ansi > picture.svg
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	title := flag.String("title", "", "a title drawn in the window's bar (none: no bar)")
	flag.Parse()
	if err := draw(os.Stdin, os.Stdout, *title); err != nil {
		fmt.Fprintln(os.Stderr, "termpicture:", err)
		os.Exit(1)
	}
}

func draw(r io.Reader, w io.Writer, title string) error {
	in, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("reading the screen: %w", err)
	}
	screen := parse(string(in))
	if len(screen) == 0 {
		return fmt.Errorf("the screen is empty: give it what `tmux capture-pane -e -p` prints")
	}
	out := bufio.NewWriter(w)
	writeSVG(out, screen, title)
	return out.Flush()
}

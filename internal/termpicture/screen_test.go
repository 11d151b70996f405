package main

import (
	"bufio"
	"strings"
	"testing"
)

func TestParseKeepsEveryCellAndItsStyle(t *testing.T) {
	// What tmux prints for "Rynek │ ● ready" with a bold accent, a colour
	// change before the dot, reverse video and a wide emoji.
	s := parse("\x1b[1m\x1b[38;5;141mRynek\x1b[0m \x1b[38;5;77m● ready\x1b[39m\n\x1b[7m 1 \x1b[27m👩‍💻x\n")
	if len(s) != 2 {
		t.Fatalf("%d rows, want 2", len(s))
	}
	var text strings.Builder
	for _, c := range s[0] {
		text.WriteString(c.text)
	}
	if got := text.String(); got != "Rynek ● ready" {
		t.Errorf("row 1 reads %q: a grapheme right after a sequence was lost", got)
	}
	if c := s[0][0]; !c.style.bold || c.style.fg != 141 {
		t.Errorf("R's style %+v, want bold colour 141", c.style)
	}
	if c := s[0][6]; c.text != "●" || c.style.fg != 77 || c.style.bold {
		t.Errorf("the dot %+v, want colour 77, not bold", c)
	}
	if c := s[1][1]; c.text != "1" || !c.style.rev {
		t.Errorf("%+v, want 1 in reverse video", c)
	}
	if c := s[1][3]; c.text != "👩‍💻" || c.width != 2 || c.style.rev {
		t.Errorf("%+v, want one wide grapheme, not reversed", c)
	}
}

func TestSGRColours(t *testing.T) {
	for _, tc := range []struct {
		params string
		fg, bg int
	}{
		{"31", 1, defaultColor},
		{"91;42", 9, 2},
		{"38;5;208", 208, defaultColor},
		{"38;2;10;20;30;48;5;17", rgbFlag | 0x0a141e, 17},
		{"38:2:10:20:30", rgbFlag | 0x0a141e, defaultColor},
		{"31;0", defaultColor, defaultColor},
	} {
		st := sgr(plain, tc.params)
		if st.fg != tc.fg || st.bg != tc.bg {
			t.Errorf("SGR %s: fg %x bg %x, want %x %x", tc.params, st.fg, st.bg, tc.fg, tc.bg)
		}
	}
}

func TestSVGPlacesRunsOnTheirCells(t *testing.T) {
	var b strings.Builder
	w := bufio.NewWriter(&b)
	writeSVG(w, parse("ab \x1b[7mcd\x1b[0m <&>\n"), "")
	w.Flush()
	svg := b.String()
	for _, want := range []string{
		`<text x="16" y="29.5" fill="#d0d0d0" textLength="25.2"`,          // "ab " from column 0, three cells
		`<rect x="41.2" y="16" width="16.8" height="18" fill="#d0d0d0"/>`, // reverse: the default foreground behind "cd"
		`fill="#1c1c1c" textLength="16.8"`,                                // and the background's colour on it
		`> &lt;&amp;&gt;</text>`,                                          // text escaped
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("the SVG lacks %s:\n%s", want, svg)
		}
	}
}

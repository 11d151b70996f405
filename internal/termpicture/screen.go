package main

import (
	"strconv"
	"strings"

	"github.com/rivo/uniseg"
)

// A screen is the terminal's rows of cells, top to bottom.
type screen [][]cell

// A cell is one grapheme on the screen and the style it was drawn in. A wide
// grapheme (an emoji, a CJK letter) is one cell of width 2.
type cell struct {
	text  string
	width int
	style style
}

// style is what SGR sequences set. A colour is defaultColor, a palette index
// 0-255, or rgbFlag|0xRRGGBB.
type style struct {
	fg, bg                              int
	bold, faint, italic, underline, rev bool
}

const (
	defaultColor = -1
	rgbFlag      = 1 << 24
)

var plain = style{fg: defaultColor, bg: defaultColor}

// parse reads text with SGR sequences into a screen. Sequences other than
// SGR (cursor moves, OSC titles) are skipped: capture-pane prints none that
// move the cursor, and the picture shows cells, not a terminal's state.
func parse(s string) screen {
	var (
		rows  screen
		row   []cell
		st    = plain
		state = -1
	)
	for len(s) > 0 {
		switch c := s[0]; {
		case c == '\x1b':
			n, params, final := escape(s)
			if final == 'm' {
				st = sgr(st, params)
			}
			s = s[n:]
			state = -1 // the text after a sequence starts a grapheme
		case c == '\n':
			rows = append(rows, row)
			row = nil
			s = s[1:]
			state = -1
		case c < 0x20 || c == 0x7f:
			s = s[1:]
			state = -1
		default:
			var g string
			var w int
			g, s, w, state = uniseg.FirstGraphemeClusterInString(s, state)
			if w == 0 {
				continue
			}
			row = append(row, cell{text: g, width: w, style: st})
		}
	}
	if len(row) > 0 {
		rows = append(rows, row)
	}
	for len(rows) > 0 && len(rows[len(rows)-1]) == 0 {
		rows = rows[:len(rows)-1]
	}
	return rows
}

// escape measures the escape sequence at the start of s: its length, and for
// a CSI sequence its parameters and final byte (0 for any other sequence).
func escape(s string) (n int, params string, final byte) {
	if len(s) < 2 {
		return len(s), "", 0
	}
	switch s[1] {
	case '[':
		for i := 2; i < len(s); i++ {
			if s[i] >= 0x40 && s[i] <= 0x7e {
				return i + 1, s[2:i], s[i]
			}
		}
		return len(s), "", 0
	case ']', 'P', '_', '^': // OSC, DCS, APC, PM: up to BEL or ST
		for i := 2; i < len(s); i++ {
			if s[i] == '\a' {
				return i + 1, "", 0
			}
			if s[i] == '\x1b' && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2, "", 0
			}
		}
		return len(s), "", 0
	}
	return 2, "", 0
}

// sgr applies one Select Graphic Rendition sequence's parameters.
func sgr(st style, params string) style {
	if params == "" {
		return plain
	}
	ps := strings.FieldsFunc(params, func(r rune) bool { return r == ';' || r == ':' })
	num := func(i int) int {
		if i >= len(ps) {
			return -1
		}
		v, err := strconv.Atoi(ps[i])
		if err != nil {
			return -1
		}
		return v
	}
	for i := 0; i < len(ps); i++ {
		switch p := num(i); {
		case p == 0:
			st = plain
		case p == 1:
			st.bold = true
		case p == 2:
			st.faint = true
		case p == 3:
			st.italic = true
		case p == 4:
			st.underline = true
		case p == 7:
			st.rev = true
		case p == 22:
			st.bold, st.faint = false, false
		case p == 23:
			st.italic = false
		case p == 24:
			st.underline = false
		case p == 27:
			st.rev = false
		case p >= 30 && p <= 37:
			st.fg = p - 30
		case p >= 90 && p <= 97:
			st.fg = p - 90 + 8
		case p == 39:
			st.fg = defaultColor
		case p >= 40 && p <= 47:
			st.bg = p - 40
		case p >= 100 && p <= 107:
			st.bg = p - 100 + 8
		case p == 49:
			st.bg = defaultColor
		case p == 38 || p == 48:
			var c int
			switch num(i + 1) {
			case 5:
				c = num(i + 2)
				i += 2
			case 2:
				r, g, b := num(i+2), num(i+3), num(i+4)
				c = rgbFlag | (r&0xff)<<16 | (g&0xff)<<8 | b&0xff
				i += 4
			default:
				continue
			}
			if c < 0 {
				continue
			}
			if p == 38 {
				st.fg = c
			} else {
				st.bg = c
			}
		}
	}
	return st
}

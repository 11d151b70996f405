package main

import (
	"bufio"
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
)

// The picture's geometry, in SVG user units (pixels at 100%).
const (
	fontSize = 14.0
	cellW    = 8.4 // a monospace font's advance at fontSize: 0.6em
	cellH    = 18.0
	pad      = 16.0
	barH     = 28.0 // the window's title bar, when it has a title
)

// The window's own colours, and the 16 ANSI colours, close to a common dark
// terminal theme.
const (
	background = "#1c1c1c"
	foreground = "#d0d0d0"
)

var ansi16 = [16]string{
	"#1c1c1c", "#e06c75", "#98c379", "#e5c07b", "#61afef", "#c678dd", "#56b6c2", "#d0d0d0",
	"#5c6370", "#ff7b86", "#b5e890", "#ffd787", "#80c8ff", "#de9bff", "#7fd8e3", "#ffffff",
}

// color is the CSS colour of a style's colour; def stands for the default.
func color(c int, def string) string {
	switch {
	case c == defaultColor:
		return def
	case c&rgbFlag != 0:
		return fmt.Sprintf("#%06x", c&0xffffff)
	case c < 16:
		return ansi16[c]
	case c < 232: // the 6×6×6 cube
		c -= 16
		level := func(v int) int {
			if v == 0 {
				return 0
			}
			return 55 + 40*v
		}
		return fmt.Sprintf("#%02x%02x%02x", level(c/36), level(c/6%6), level(c%6))
	default: // 24 greys
		g := 8 + 10*(c-232)
		return fmt.Sprintf("#%02x%02x%02x", g, g, g)
	}
}

// colors resolves a style's foreground and background, reverse video
// included; bg is "" where the window's background shows.
func colors(st style) (fg, bg string) {
	fg = color(st.fg, foreground)
	if st.bg != defaultColor {
		bg = color(st.bg, background)
	}
	if st.rev {
		b := bg
		if b == "" {
			b = background
		}
		fg, bg = b, fg
	}
	return fg, bg
}

// writeSVG draws the screen: a rectangle per run of one background, a text
// element per run of one style, each placed at its first cell and stretched
// to its cells' width, so a viewer's font cannot push columns out of line.
func writeSVG(w *bufio.Writer, s screen, title string) {
	cols := 0
	for _, row := range s {
		n := 0
		for _, c := range row {
			n += c.width
		}
		cols = max(cols, n)
	}
	top := pad
	if title != "" {
		top += barH
	}
	width := 2*pad + float64(cols)*cellW
	height := top + pad + float64(len(s))*cellH
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s">`+"\n", px(width), px(height), px(width), px(height))
	fmt.Fprintf(w, `<rect width="100%%" height="100%%" rx="8" fill="%s"/>`+"\n", background)
	if title != "" {
		for i, dot := range []string{"#ff5f57", "#febc2e", "#28c840"} {
			fmt.Fprintf(w, `<circle cx="%s" cy="%s" r="6" fill="%s"/>`+"\n", px(pad+6+float64(i)*20), px(barH/2+4), dot)
		}
		fmt.Fprintf(w, `<text x="%s" y="%s" fill="#8a8a8a" font-family="sans-serif" font-size="13" text-anchor="middle">%s</text>`+"\n",
			px(width/2), px(barH/2+8), html.EscapeString(title))
	}
	fmt.Fprintf(w, `<g font-family="'DejaVu Sans Mono','SF Mono',Menlo,Consolas,'Liberation Mono',monospace" font-size="%s" style="white-space:pre">`+"\n", px(fontSize))
	for y, row := range s {
		base := top + float64(y)*cellH
		for _, r := range runs(row) {
			fg, bg := colors(r.style)
			x := pad + float64(r.col)*cellW
			if bg != "" {
				fmt.Fprintf(w, `<rect x="%s" y="%s" width="%s" height="%s" fill="%s"/>`+"\n", px(x), px(base), px(float64(r.width)*cellW), px(cellH), bg)
			}
			if strings.TrimSpace(r.text) == "" && !r.style.underline {
				continue
			}
			var attrs strings.Builder
			if r.style.bold {
				attrs.WriteString(` font-weight="bold"`)
			}
			if r.style.italic {
				attrs.WriteString(` font-style="italic"`)
			}
			if r.style.underline {
				attrs.WriteString(` text-decoration="underline"`)
			}
			if r.style.faint {
				attrs.WriteString(` opacity="0.6"`)
			}
			fmt.Fprintf(w, `<text x="%s" y="%s" fill="%s" textLength="%s" lengthAdjust="spacingAndGlyphs" xml:space="preserve"%s>%s</text>`+"\n",
				px(x), px(base+cellH*0.75), fg, px(float64(r.width)*cellW), attrs.String(), html.EscapeString(r.text))
		}
	}
	w.WriteString("</g>\n</svg>\n")
}

// px writes a length with at most two decimals.
func px(v float64) string {
	return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
}

// A run is consecutive cells of one style.
type run struct {
	col, width int
	text       string
	style      style
}

func runs(row []cell) []run {
	var out []run
	col := 0
	for _, c := range row {
		if n := len(out); n > 0 && out[n-1].style == c.style && out[n-1].col+out[n-1].width == col {
			out[n-1].text += c.text
			out[n-1].width += c.width
		} else {
			out = append(out, run{col: col, width: c.width, text: c.text, style: c.style})
		}
		col += c.width
	}
	return out
}

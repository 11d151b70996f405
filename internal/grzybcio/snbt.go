package grzybcio

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The current item shape stores each component as an SNBT string (the
// game's stringified NBT), and the legacy one its name and lore as JSON text
// components. Both decode here to the same plain values: map[string]any for
// a compound or JSON object, []any for a list or array, string, float64 for
// a number, bool. That is all the importer needs to read names, lore,
// enchantments and stack sizes; the component itself stays in the kept
// subtree, whatever it holds.

// maxNesting bounds how deep a value may nest, so that a hostile file
// cannot exhaust the stack.
const maxNesting = 256

// parseSNBT parses one SNBT value that makes up the whole of s.
func parseSNBT(s string) (any, error) {
	p := snbtParser{s: s}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.s) {
		return nil, p.errorf("unexpected %q after the value", p.s[p.i:min(len(p.s), p.i+10)])
	}
	return v, nil
}

type snbtParser struct {
	s string
	i int
}

func (p *snbtParser) errorf(format string, args ...any) error {
	return fmt.Errorf("SNBT at character %d: %s", p.i+1, fmt.Sprintf(format, args...))
}

func (p *snbtParser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *snbtParser) value(depth int) (any, error) {
	if depth > maxNesting {
		return nil, p.errorf("nested more than %d deep", maxNesting)
	}
	p.space()
	if p.i >= len(p.s) {
		return nil, p.errorf("a value is missing")
	}
	switch c := p.s[p.i]; c {
	case '{':
		return p.compound(depth)
	case '[':
		return p.list(depth)
	case '"', '\'':
		return p.quoted()
	}
	word := p.word()
	if word == "" {
		return nil, p.errorf("unexpected %q", p.s[p.i])
	}
	return wordValue(word), nil
}

// word reads an unquoted token.
func (p *snbtParser) word() string {
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || strings.IndexByte("_-.+", c) >= 0 {
			p.i++
			continue
		}
		break
	}
	return p.s[start:p.i]
}

// wordValue reads an unquoted token as a boolean, a number (with or without
// its type suffix: 1b, 2s, 3L, 1.5f, 2.0d) or, failing both, a string.
func wordValue(w string) any {
	switch strings.ToLower(w) {
	case "true":
		return true
	case "false":
		return false
	}
	t := w
	if n := len(t); n > 1 && strings.IndexByte("bBsSlLfFdD", t[n-1]) >= 0 {
		t = t[:n-1]
	}
	if v, err := strconv.ParseFloat(t, 64); err == nil && t != "" && (t[0] == '-' || t[0] == '+' || t[0] == '.' || t[0] >= '0' && t[0] <= '9') {
		return v
	}
	return w
}

func (p *snbtParser) quoted() (string, error) {
	q := p.s[p.i]
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return b.String(), nil
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return "", p.errorf("a string ends in a backslash")
			}
			e := p.s[p.i+1]
			p.i += 2
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 's':
				b.WriteByte(' ')
			case 'x', 'u', 'U':
				n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
				if p.i+n > len(p.s) {
					return "", p.errorf("a \\%c escape is cut short", e)
				}
				r, err := strconv.ParseUint(p.s[p.i:p.i+n], 16, 32)
				if err != nil || !utf8.ValidRune(rune(r)) {
					return "", p.errorf("bad \\%c escape %q", e, p.s[p.i:p.i+n])
				}
				b.WriteRune(rune(r))
				p.i += n
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return "", p.errorf("a string is not closed")
}

func (p *snbtParser) compound(depth int) (map[string]any, error) {
	p.i++ // {
	m := map[string]any{}
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return m, nil
	}
	for {
		p.space()
		var key string
		var err error
		if p.i < len(p.s) && (p.s[p.i] == '"' || p.s[p.i] == '\'') {
			key, err = p.quoted()
		} else if key = p.word(); key == "" {
			err = p.errorf("a key is missing")
		}
		if err != nil {
			return nil, err
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, p.errorf("a ':' is missing after key %q", key)
		}
		p.i++
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		m[key] = v
		p.space()
		if p.i >= len(p.s) {
			return nil, p.errorf("a compound is not closed")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return m, nil
		default:
			return nil, p.errorf("unexpected %q in a compound", p.s[p.i])
		}
	}
}

func (p *snbtParser) list(depth int) ([]any, error) {
	p.i++ // [
	// A typed array: [B;1b,2b], [I;1,2], [L;1L].
	if p.i+1 < len(p.s) && p.s[p.i+1] == ';' && strings.IndexByte("BIL", p.s[p.i]) >= 0 {
		p.i += 2
	}
	var out []any
	p.space()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return []any{}, nil
	}
	for {
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		p.space()
		if p.i >= len(p.s) {
			return nil, p.errorf("a list is not closed")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return out, nil
		default:
			return nil, p.errorf("unexpected %q in a list", p.s[p.i])
		}
	}
}

// parseJSONText reads a legacy meta's display name or lore line: a JSON
// text component, or, in files older than that, plain legacy text.
func parseJSONText(s string) any {
	t := strings.TrimSpace(s)
	if t == "" || strings.IndexByte(`{["`, t[0]) < 0 {
		return s
	}
	var v any
	if err := json.Unmarshal([]byte(t), &v); err != nil {
		return s
	}
	return v
}

// legacyCodes are the § codes of the named colours and formats.
var legacyCodes = map[string]byte{
	"black": '0', "dark_blue": '1', "dark_green": '2', "dark_aqua": '3', "dark_red": '4', "dark_purple": '5',
	"gold": '6', "gray": '7', "dark_gray": '8', "blue": '9', "green": 'a', "aqua": 'b', "red": 'c',
	"light_purple": 'd', "yellow": 'e', "white": 'f',
}

var formatCodes = []struct {
	key  string
	code byte
}{{"obfuscated", 'k'}, {"bold", 'l'}, {"strikethrough", 'm'}, {"underlined", 'n'}, {"italic", 'o'}}

// legacyText renders a text component as Bukkit's legacy text, with §
// colour and format codes: the form the original plugin searched and showed
// (getDisplayName), and Rynek's display names too.
func legacyText(v any) string {
	var b strings.Builder
	writeLegacy(&b, v, 0)
	return b.String()
}

func writeLegacy(b *strings.Builder, v any, depth int) {
	if depth > maxNesting {
		return
	}
	switch v := v.(type) {
	case string:
		b.WriteString(v)
	case float64:
		b.WriteString(strconv.FormatFloat(v, 'f', -1, 64))
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case []any:
		for _, e := range v {
			writeLegacy(b, e, depth+1)
		}
	case map[string]any:
		if c, ok := v["color"].(string); ok {
			if code, ok := legacyCodes[c]; ok {
				b.WriteString("§")
				b.WriteByte(code)
			} else if len(c) == 7 && c[0] == '#' {
				b.WriteString("§x")
				for i := 1; i < 7; i++ {
					b.WriteString("§")
					b.WriteByte(c[i] | 0x20) // lower case, as Bukkit writes it
				}
			}
		}
		for _, f := range formatCodes {
			if truthy(v[f.key]) {
				b.WriteString("§")
				b.WriteByte(f.code)
			}
		}
		switch {
		case v["text"] != nil:
			writeLegacy(b, v["text"], depth+1)
		case v[""] != nil: // a compound holding only its text, as the game writes some
			writeLegacy(b, v[""], depth+1)
		case v["translate"] != nil:
			if fb, ok := v["fallback"].(string); ok {
				b.WriteString(fb)
			} else {
				writeLegacy(b, v["translate"], depth+1)
			}
		case v["keybind"] != nil:
			writeLegacy(b, v["keybind"], depth+1)
		}
		if extra, ok := v["extra"].([]any); ok {
			writeLegacy(b, extra, depth+1)
		}
	}
}

// truthy reads an NBT or JSON boolean: true, or a number other than 0 (1b).
func truthy(v any) bool {
	switch v := v.(type) {
	case bool:
		return v
	case float64:
		return v != 0
	}
	return false
}

// snbtString quotes s as an SNBT string.
func snbtString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Package grzybcio reads and writes the data files of GrzybcioRynek, the
// game-server plugin that Rynek replaces: listings.yml and market-data.yml
// (Bukkit YamlConfiguration, written by SnakeYAML), with the two shapes of
// Bukkit's serialized ItemStack in them. `rynek import` and `rynek export`
// are built on it, so that a server can come from the plugin and go back.
//
// The package is named after the files' owner rather than after YAML because
// what it knows is that plugin's layout and semantics (its price rounding,
// its computed expiry, its transaction states); the YAML is only how they
// are written. The market itself knows nothing of YAML: this package turns
// the files into market.Bulk calls and a market's StoreContents back into
// the files.
package grzybcio

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Error is a problem at a place in one of the plugin's files.
type Error struct {
	File string
	// Line and Column are 1-based; Column is 0 when the YAML library did
	// not say (it gives only a line for a syntax error).
	Line, Column int
	Reason       string
}

func (e *Error) Error() string {
	switch {
	case e.Line == 0:
		return e.File + ": " + e.Reason
	case e.Column == 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Reason)
}

// file is one of the plugin's files, for the positions of what is said
// about it.
type file struct {
	path string
}

func (f *file) errorf(n *yaml.Node, format string, args ...any) *Error {
	e := &Error{File: f.path, Reason: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Column = n.Line, n.Column
	}
	return e
}

// where is a node's position, as the report prints it.
func (f *file) where(n *yaml.Node) string { return f.at(n).String() }

// position is a place in one of the files.
type position struct {
	file      string
	line, col int
}

func (f *file) at(n *yaml.Node) position { return position{f.path, n.Line, n.Column} }

// String is the position as the report prints it: file:line:column.
func (p position) String() string { return fmt.Sprintf("%s:%d:%d", p.file, p.line, p.col) }

// errorf is an error at the position.
func (p position) errorf(format string, args ...any) *Error {
	return &Error{File: p.file, Line: p.line, Column: p.col, Reason: fmt.Sprintf(format, args...)}
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parse reads a YAML document into its root node; nil for an empty file.
func (f *file) parse(data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		msg := err.Error()
		if m := yamlLine.FindStringSubmatch(msg); m != nil {
			line, _ := strconv.Atoi(m[1])
			return nil, &Error{File: f.path, Line: line, Reason: "not valid YAML: " + m[2]}
		}
		return nil, &Error{File: f.path, Reason: "not valid YAML: " + strings.TrimPrefix(msg, "yaml: ")}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil
	}
	return deref(doc.Content[0]), nil
}

// deref follows aliases: SnakeYAML writes one when an object appears twice.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 64; i++ {
		n = n.Alias
	}
	return n
}

// pairs calls fn for each key and value of a mapping, in file order.
func pairs(n *yaml.Node, fn func(k, v *yaml.Node) error) error {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if err := fn(deref(n.Content[i]), deref(n.Content[i+1])); err != nil {
			return err
		}
	}
	return nil
}

// get returns the value of key in mapping n, nil when absent.
func get(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := deref(n.Content[i]); k != nil && k.Kind == yaml.ScalarNode && k.Value == key {
			return deref(n.Content[i+1])
		}
	}
	return nil
}

// isNull reports whether n is absent or YAML's null.
func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// text returns a scalar's text: a string, or a number or boolean as
// written. Null, a mapping or a list is not text.
func text(n *yaml.Node) (string, bool) {
	if n == nil || n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", false
	}
	return n.Value, true
}

// integer reads an integer scalar (a quoted one too: map keys such as
// '12' are strings).
func integer(n *yaml.Node) (int64, bool) {
	s, ok := text(n)
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64)
	return v, err == nil
}

// number reads a finite number; Java's Double.toString writes large ones as
// 1.5E7.
func number(n *yaml.Node) (float64, bool) {
	s, ok := text(n)
	if !ok || n.Tag != "!!int" && n.Tag != "!!float" {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// kindName names a node's kind for messages.
func kindName(n *yaml.Node) string {
	switch {
	case n == nil:
		return "nothing"
	case n.Kind == yaml.MappingNode:
		return "a map"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case isNull(n):
		return "null"
	}
	return fmt.Sprintf("%q", truncate(n.Value, 40))
}

// truncate shortens s to at most max bytes on a rune boundary.
func truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

package grzybcio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The plugin's files are block YAML as SnakeYAML writes it: a map of
// sections at the left margin, each holding a number, or a list or a map
// whose entries start at one indentation on the lines below. An import
// reads them in two passes over the lines. The first (outline) finds the
// sections and counts their entries without parsing them; the second
// parses one entry at a time, each on its own, so that what an import holds
// is a few entries' trees, never the whole file's (a 300,000-listing file's
// tree took 10 KB a listing).
//
// An entry parsed on its own reads as it does in the whole file: its
// lines keep their indentation, and its nodes get the file's line numbers.
// One thing does not carry over: an alias to an anchor in another entry
// (SnakeYAML writes one only for an object saved twice, which the plugin
// never does); such an entry is refused as not valid YAML, with its line.

// section is one of a file's top-level keys and where its value is.
type section struct {
	key       string
	line, col int // the key's
	// start and end are the byte offsets of the section's lines: its key's
	// line up to the next section's.
	start, end int64
	// block is set when the value is on the lines below the key: a list
	// (seq) or a map of entries, as SnakeYAML writes them. Otherwise the
	// value is on the key's line (a number, [], {}) and is parsed whole.
	block bool
	seq   bool
	// whole is set when the value is all on the key's line (a number, a
	// word, [], {}): a line indented under it belongs to nothing.
	whole bool
	// body and bodyLine are where the lines below the key start.
	body     int64
	bodyLine int
	// indent is the indentation of a block value's entries; first and last
	// are the lines of its first and last entry (0: it has none).
	indent      int
	first, last int
	entries     int
}

// outline is a file's sections, found by reading its lines without parsing
// them.
type outline struct {
	path     string
	sections []section
	size     int64
	lines    int  // the number of the file's last line
	lineEnd  bool // the file ends with a line break, as SnakeYAML ends every file it writes
	cutKey   bool // its last line is a key cut short
	repeated []section
}

// get returns the section with key, nil when the file has none.
func (o *outline) get(key string) *section {
	for i := range o.sections {
		if o.sections[i].key == key {
			return &o.sections[i]
		}
	}
	return nil
}

// lastSection is the section the file ends in, nil for a file with none.
func (o *outline) lastSection() *section {
	if len(o.sections) == 0 {
		return nil
	}
	last := &o.sections[0]
	for i := range o.sections {
		if o.sections[i].start > last.start {
			last = &o.sections[i]
		}
	}
	return last
}

// maxEntryBytes bounds one entry's text: no entry the plugin writes comes
// near it, and an import holds a few hundred entries at a time.
const maxEntryBytes = 64 << 20

// lines reads a file's lines, counting them.
type lines struct {
	r    *bufio.Reader
	line int   // the number of the line last read
	off  int64 // the byte offset of the line last read
	next int64 // the byte offset of the line after it
	text []byte
	long []byte // a line longer than the reader's buffer, assembled
	err  error
}

func newLines(r io.Reader, off int64, line int) *lines {
	return &lines{r: bufio.NewReaderSize(r, 1<<20), next: off, line: line}
}

// scan reads the next line into text (with its line break, if it has one).
// The text is valid until the next scan.
func (l *lines) scan() bool {
	if l.err != nil {
		return false
	}
	text, err := l.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		l.long = append(l.long[:0], text...)
		for errors.Is(err, bufio.ErrBufferFull) {
			if len(l.long) > maxEntryBytes {
				l.err = fmt.Errorf("line %d is over %d MB long", l.line+1, maxEntryBytes>>20)
				return false
			}
			text, err = l.r.ReadSlice('\n')
			l.long = append(l.long, text...)
		}
		text = l.long
	}
	if err != nil && !errors.Is(err, io.EOF) {
		l.err = err
		return false
	}
	if len(text) == 0 {
		return false
	}
	l.text = text
	l.line++
	l.off = l.next
	l.next += int64(len(text))
	return true
}

// shape tells a line's indentation and whether it holds anything: a blank
// line, or one with only a comment, holds nothing.
func shape(b []byte) (indent int, content bool) {
	for indent < len(b) && b[indent] == ' ' {
		indent++
	}
	if indent == len(b) {
		return indent, false
	}
	switch b[indent] {
	case '\n', '\r', '#':
		return indent, false
	}
	return indent, true
}

// tabIndent is the column (1-based) of a tab in the indentation of a line
// that holds something, 0 when there is none. YAML forbids tabs there;
// a tab in a blank line, or after the indentation, is allowed.
func tabIndent(b []byte) int {
	tab := 0
	for i, c := range b {
		switch c {
		case ' ':
		case '\t':
			if tab == 0 {
				tab = i + 1
			}
		case '\n', '\r', '#':
			return 0
		default:
			return tab
		}
	}
	return 0
}

// isItem reports whether the line starts a list item at indent: "-" then a
// space or the line's end.
func isItem(b []byte, indent int) bool {
	if indent >= len(b) || b[indent] != '-' {
		return false
	}
	return indent+1 == len(b) || strings.IndexByte(" \t\r\n", b[indent+1]) >= 0
}

// startsEntry reports whether a line with content at indent starts a new
// entry of s's block value. A list's entries are its items; a map's are its
// keys, and a list at the map's indentation (SnakeYAML writes "key:" and
// "- item" one under the other) belongs to the key above it.
func (s *section) startsEntry(b []byte, indent int) bool {
	if indent != s.indent {
		return false
	}
	return s.seq || !isItem(b, indent)
}

// readOutline reads the sections of the file at path. A file that does not
// exist is fs.ErrNotExist; one whose top level is not a map of sections at
// the left margin is not the plugin's, and is refused with its line.
func readOutline(path string) (*outline, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	o := &outline{path: path}
	what := "GrzybcioRynek's " + filepath.Base(path)
	l := newLines(f, 0, 0)
	var cur *section
	seen := map[string]bool{}
	for l.scan() {
		o.lineEnd = l.text[len(l.text)-1] == '\n'
		indent, content := shape(l.text)
		if col := tabIndent(l.text); col > 0 {
			// Read as spaces' absence, a tab would make the line a section
			// of its own and the entries after it part of nothing.
			return nil, &Error{File: path, Line: l.line, Column: col, Reason: "not valid YAML: a tab in the line's indentation " +
				"(YAML indents with spaces only; an editor may have put it there): replace it with spaces"}
		}
		// SnakeYAML writes a section's list at the left margin, under its key.
		entry := cur != nil && cur.block && (indent > 0 || isItem(l.text, 0) && (cur.first == 0 || cur.indent == 0 && cur.seq))
		switch {
		case !content:
			continue
		case indent > 0 && cur == nil:
			return nil, &Error{File: path, Line: l.line, Column: indent + 1,
				Reason: fmt.Sprintf("this is not %s: its sections do not start at the left margin", what)}
		case indent > 0 && !cur.block && cur.whole:
			// The lines of an entry whose first lines lost their
			// indentation, which made a section of them: read around,
			// every entry below would be part of nothing.
			return nil, &Error{File: path, Line: l.line, Column: indent + 1, Reason: fmt.Sprintf(
				"not valid YAML: this line is indented under %q (line %d), whose value ends on its own line; a line above it may have lost its indentation",
				truncate(cur.key, 60), cur.line)}
		case indent > 0 && !cur.block:
			continue // more of a value that starts on the key's line
		case entry:
			if cur.first == 0 {
				cur.indent, cur.seq = indent, isItem(l.text, indent)
			}
			if cur.startsEntry(l.text, indent) || cur.first == 0 {
				if cur.first == 0 {
					cur.first = l.line
				}
				cur.entries++
				cur.last = l.line
			}
			continue
		}
		if bytes.HasPrefix(l.text, []byte("---")) || bytes.HasPrefix(l.text, []byte("...")) {
			if cur == nil && bytes.HasPrefix(l.text, []byte("---")) && len(bytes.TrimSpace(l.text[3:])) == 0 {
				continue // the start of the document
			}
			return nil, &Error{File: path, Line: l.line, Column: 1, Reason: fmt.Sprintf("this is not %s: it holds more than one YAML document", what)}
		}
		if isItem(l.text, 0) {
			return nil, &Error{File: path, Line: l.line, Column: 1, Reason: fmt.Sprintf("this is not %s: it holds a list, not a map of sections", what)}
		}
		if cur != nil {
			cur.end = l.off
			o.add(cur, seen)
		}
		s, err := sectionAt(path, l.text, l.line, what)
		if err != nil && !o.lineEnd {
			// A key cut short: the file's last line, with no line break.
			o.cutKey, cur = true, nil
			break
		}
		if err != nil {
			return nil, err
		}
		s.start, s.body, s.bodyLine = l.off, l.next, l.line+1
		cur = &s
	}
	if l.err != nil {
		return nil, fmt.Errorf("read %s: %w", path, l.err)
	}
	if cur != nil {
		cur.end = l.next
		o.add(cur, seen)
	}
	o.size, o.lines = l.next, l.line
	if o.size == 0 {
		o.lineEnd = true
	}
	return o, nil
}

// add keeps s, or notes it as a repeat when the file had its key already.
func (o *outline) add(s *section, seen map[string]bool) {
	if seen[s.key] {
		o.repeated = append(o.repeated, *s)
		return
	}
	seen[s.key] = true
	o.sections = append(o.sections, *s)
}

// sectionAt reads a section's key from its first line, and whether its
// value is on the lines below.
func sectionAt(path string, text []byte, line int, what string) (section, error) {
	s := section{line: line, col: 1}
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil || len(doc.Content) == 0 {
		// A value that goes on over more lines (a flow list, a quoted
		// text): the whole section is parsed when it is read.
		key, _, ok := strings.Cut(string(text), ":")
		if !ok {
			return s, &Error{File: path, Line: line, Reason: "not valid YAML: a line at the left margin that is not a key"}
		}
		s.key = strings.Trim(strings.TrimSpace(key), `'"`)
		return s, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode || len(root.Content) < 2 {
		return s, &Error{File: path, Line: line, Column: 1, Reason: fmt.Sprintf("this is not %s: it holds %s, not a map of sections", what, kindName(root))}
	}
	k, v := root.Content[0], root.Content[1]
	s.key, s.col = k.Value, k.Column
	s.block = v.Kind == yaml.ScalarNode && v.Tag == "!!null" && v.Value == "" && v.Style == 0
	s.whole = v.Kind == yaml.ScalarNode && v.Value != "" && v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) == 0 ||
		(v.Kind == yaml.SequenceNode || v.Kind == yaml.MappingNode) && v.Style&yaml.FlowStyle != 0
	return s, nil
}

// parse reads a section whose value is on its key's line (and perhaps
// lines after it) whole, and returns the value.
func (o *outline) parse(f *os.File, s *section) (*yaml.Node, error) {
	text := make([]byte, s.end-s.start)
	if _, err := f.ReadAt(text, s.start); err != nil {
		return nil, fmt.Errorf("read %s: %w", o.path, err)
	}
	root, err := parseText(o.path, text, s.line)
	if err != nil {
		return nil, err
	}
	if root == nil || root.Kind != yaml.MappingNode || len(root.Content) < 2 {
		return nil, &Error{File: o.path, Line: s.line, Reason: "not valid YAML: a section without a value"}
	}
	return deref(root.Content[1]), nil
}

// eachEntry calls fn with the text of each entry of s's block value, from
// the line it starts on to the next entry's, and that line's number.
func (o *outline) eachEntry(f *os.File, s *section, fn func(text []byte, line int) error) error {
	l := newLines(io.NewSectionReader(f, s.body, s.end-s.body), s.body, s.bodyLine-1)
	var text []byte
	line := 0
	for l.scan() {
		indent, content := shape(l.text)
		if content && line > 0 && s.startsEntry(l.text, indent) {
			if err := fn(text, line); err != nil {
				return err
			}
			text = nil
		}
		if content && text == nil {
			line = l.line
		}
		if line > 0 {
			if len(text)+len(l.text) > maxEntryBytes {
				return &Error{File: o.path, Line: line, Reason: fmt.Sprintf("an entry over %d MB long", maxEntryBytes>>20)}
			}
			text = append(text, l.text...)
		}
	}
	if l.err != nil {
		return fmt.Errorf("read %s: %w", o.path, l.err)
	}
	if line > 0 {
		return fn(text, line)
	}
	return nil
}

// parseText parses text, whose first line is the file's line first, into
// its root node with the file's line numbers; nil for no document.
func parseText(path string, text []byte, first int) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		msg := err.Error()
		if m := yamlLine.FindStringSubmatch(msg); m != nil {
			var n int
			fmt.Sscan(m[1], &n)
			return nil, &Error{File: path, Line: n + first - 1, Reason: "not valid YAML: " + m[2]}
		}
		return nil, &Error{File: path, Line: first, Reason: "not valid YAML: " + strings.TrimPrefix(msg, "yaml: ")}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil
	}
	shiftLines(&doc, first-1)
	return deref(doc.Content[0]), nil
}

// shiftLines adds by to the line of n and of every node under it. An alias
// is not followed: the node it names is in the tree too.
func shiftLines(n *yaml.Node, by int) {
	n.Line += by
	for _, c := range n.Content {
		shiftLines(c, by)
	}
}

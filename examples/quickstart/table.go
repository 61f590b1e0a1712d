package main

import (
	"bytes"
	"io"
	"strings"
	"unicode"
)

// table lines up tab-separated cells in columns as text/tabwriter does (two
// spaces between columns, the last cell of a line left as is), but measures
// a cell by the columns a terminal gives it: an emoji or a CJK character
// takes two, a combining mark or a variation selector none. tabwriter
// counts one per character, so a row with an emoji shifted every cell after
// it.
type table struct {
	out io.Writer
	buf bytes.Buffer
}

func newTable(out io.Writer) *table { return &table{out: out} }

// Write takes text to line up at the next Flush.
func (t *table) Write(p []byte) (int, error) { return t.buf.Write(p) }

// Flush writes the lines taken since the last Flush, lined up.
func (t *table) Flush() error {
	text := strings.TrimSuffix(t.buf.String(), "\n")
	t.buf.Reset()
	if text == "" {
		return nil
	}
	var rows [][]string
	var widths []int
	for line := range strings.SplitSeq(text, "\n") {
		cells := strings.Split(line, "\t")
		for i, c := range cells[:len(cells)-1] { // the last cell is not lined up
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], displayWidth(c))
		}
		rows = append(rows, cells)
	}
	var b strings.Builder
	for _, cells := range rows {
		for i, c := range cells {
			b.WriteString(c)
			if i < len(cells)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-displayWidth(c)+2))
			}
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(t.out, b.String())
	return err
}

// displayWidth is the number of terminal columns s takes.
func displayWidth(s string) int {
	w := 0
	for _, r := range s {
		w += runeWidth(r)
	}
	return w
}

// runeWidth is the columns r takes: 0 for marks that join the character
// before, 2 for wide characters (East Asian wide and fullwidth, emoji
// shown as pictures), 1 otherwise.
func runeWidth(r rune) int {
	switch {
	case r == 0x200D, r >= 0xFE00 && r <= 0xFE0F, unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		return 0
	case r >= 0x1100 && r <= 0x115F, // Hangul Jamo
		r >= 0x2E80 && r <= 0xA4CF && r != 0x303F,              // CJK … Yi
		r >= 0xAC00 && r <= 0xD7A3,                             // Hangul syllables
		r >= 0xF900 && r <= 0xFAFF,                             // CJK compatibility ideographs
		r >= 0xFE30 && r <= 0xFE4F,                             // CJK compatibility forms
		r >= 0xFF00 && r <= 0xFF60, r >= 0xFFE0 && r <= 0xFFE6, // fullwidth forms
		r >= 0x1F300 && r <= 0x1F64F, // pictographs, emoticons
		r >= 0x1F680 && r <= 0x1F6FF, // transport and map
		r >= 0x1F900 && r <= 0x1F9FF, // supplemental pictographs
		r >= 0x1FA70 && r <= 0x1FAFF, // pictographs extended-A
		r >= 0x20000 && r <= 0x3FFFD: // CJK extensions
		return 2
	}
	return 1
}

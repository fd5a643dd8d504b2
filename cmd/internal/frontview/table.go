package frontview

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"

	"demiurge.dev/host/termtext"
)

// Table is the one way commands print rows: columns two spaces apart,
// fitted to the terminal's width (COLUMNS when set, else the terminal's,
// else unbounded) by shortening the widest columns with "…", and an
// optional colour for the state column on a terminal.
type Table struct {
	w       io.Writer
	width   int // 0: unbounded
	colour  bool
	rows    [][]string
	styleOf map[int]func(string) Style
}

const tableGap = 2

// maxCell bounds a cell's bytes before it is fitted to the width.
const maxCell = 4096

// minColumn is as narrow as fitting makes a column.
const minColumn = 8

// NewTable starts a table on w, fitted to width (0: unbounded), its
// coloured columns coloured when colour is set.
func NewTable(w io.Writer, width int, colour bool, header ...string) *Table {
	t := &Table{w: w, width: width, colour: colour, styleOf: map[int]func(string) Style{}}
	t.rows = append(t.rows, header)
	return t
}

// OutputWidth is COLUMNS when it is a positive number, else the width of
// w when it is a terminal, else 0 (unbounded).
func OutputWidth(w io.Writer) int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if f, ok := w.(*os.File); ok {
		if n, _, err := term.GetSize(int(f.Fd())); err == nil && n > 0 {
			return n
		}
	}
	return 0
}

// Row adds one row; a cell's tabs and newlines become spaces.
func (t *Table) Row(cells ...any) {
	row := make([]string, len(cells))
	for i, c := range cells {
		// Inert: a cell may be text a model or a server wrote (a tool
		// name, a goal); an escape sequence in it never reaches the
		// terminal.
		row[i] = termtext.Printable(strings.Join(strings.Fields(fmt.Sprint(c)), " "), maxCell)
	}
	t.rows = append(t.rows, row)
}

// Colour colours column col's cells (not the header) by what they say.
func (t *Table) Colour(col int, fn func(string) Style) { t.styleOf[col] = fn }

func (t *Table) Flush() error {
	widths := t.widths()
	var b strings.Builder
	for r, row := range t.rows {
		line := strings.Builder{}
		for i, cell := range row {
			cell = Truncate(cell, widths[i])
			pad := widths[i] - utf8.RuneCountInString(cell)
			if fn, ok := t.styleOf[i]; ok && r > 0 {
				cell = Paint(t.colour, fn(cell), cell)
			}
			line.WriteString(cell)
			if i < len(row)-1 {
				line.WriteString(strings.Repeat(" ", pad+tableGap))
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(t.w, b.String())
	return err
}

// widths are each column's widest cell, the widest shortened first until
// the row fits.
func (t *Table) widths() []int {
	var widths []int
	for _, row := range t.rows {
		for i, cell := range row {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	if t.width <= 0 {
		return widths
	}
	// The last column (a state, a detail, a description) gives way
	// first, then the widest.
	if last := len(widths) - 1; last >= 0 && widths[last] > minColumn {
		widths[last] = max(minColumn, widths[last]-(total(widths)-t.width))
	}
	for total(widths) > t.width {
		widest := 0
		for i, w := range widths {
			if w > widths[widest] {
				widest = i
			}
		}
		if widths[widest] <= minColumn {
			break // as narrow as it goes; the line wraps
		}
		widths[widest] = max(minColumn, widths[widest]-(total(widths)-t.width))
	}
	return widths
}

// WrapText breaks text at spaces into lines of at most width runes (a
// longer word stays whole); width 0 leaves it as it is.
func WrapText(text string, width int) string {
	if width <= 0 || utf8.RuneCountInString(text) <= width {
		return text
	}
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	return strings.Join(append(lines, line), "\n")
}

func total(widths []int) int {
	n := tableGap * max(0, len(widths)-1)
	for _, w := range widths {
		n += w
	}
	return n
}

// Truncate shortens s to n runes, its last one "…" when cut.
func Truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// Style is what a word means, shown as a colour on a terminal.
type Style int

const (
	StylePlain Style = iota
	StyleOK          // green: connected, ok, allowed, succeeded
	StyleBad         // red: failed, refused, denied, mismatch
	StyleWarn        // yellow: prompt, pending, unavailable
)

var styleCodes = map[Style]string{StyleOK: "\x1b[32m", StyleBad: "\x1b[31m", StyleWarn: "\x1b[33m"}

// ColourOn reports whether w gets colour: it must be a terminal, NO_COLOR
// (https://no-color.org) unset or empty, TERM not "dumb", and noColor
// (--no-color) not given.
func ColourOn(w io.Writer, noColor bool) bool {
	if noColor || os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Paint colours text in st's colour when on.
func Paint(on bool, st Style, text string) string {
	code, ok := styleCodes[st]
	if !on || !ok || text == "" {
		return text
	}
	return code + text + "\x1b[0m"
}

// StateStyle is the style of a state word in the tables.
func StateStyle(state string) Style {
	switch state {
	case "ok", "running", "connected", "installed", "succeeded", "allow", "available", "ready", "enforced":
		return StyleOK
	case "failed", "refused", "denied", "error", "mismatch", "block", "lost", "crashed", "unavailable":
		return StyleBad
	case "prompt", "pending", "cancelled", "disabled", "timed_out", "unresolved":
		return StyleWarn
	}
	return StylePlain
}

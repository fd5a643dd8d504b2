package termsession

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// HistoryLimit is how many lines the session's history keeps.
const HistoryLimit = 1000

// History is the interactive session's line history, one file under the
// state directory, private to the operator (0600: lines can hold tool
// arguments) and bounded: past twice the limit it is rewritten with the
// newest HistoryLimit lines.
type History struct {
	path  string
	lines int
}

func HistoryPath(state string) string { return filepath.Join(state, "history") }

// LoadHistory reads the file (creating it) and returns its newest lines.
func LoadHistory(path string) (*History, []string, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("history: %w", err)
	}
	defer f.Close()
	if err := f.Chmod(0o600); err != nil {
		return nil, nil, fmt.Errorf("history: %w", err)
	}
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if l := sc.Text(); l != "" {
			lines = append(lines, l)
		}
	}
	h := &History{path: path, lines: len(lines)}
	if len(lines) > HistoryLimit {
		lines = lines[len(lines)-HistoryLimit:]
	}
	return h, lines, nil
}

// add appends one line, compacting the file when it grew past the bound.
func (h *History) Add(line string) error {
	line = strings.ReplaceAll(line, "\n", " ")
	f, err := os.OpenFile(h.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(f, line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	h.lines++
	if h.lines > 2*HistoryLimit {
		return h.compact()
	}
	return nil
}

func (h *History) compact() error {
	_, lines, err := LoadHistory(h.path)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(h.path), ".history-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriter(tmp)
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), h.path); err != nil {
		return err
	}
	h.lines = len(lines)
	return nil
}

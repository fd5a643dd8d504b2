package mcp

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	hredact "demiurge.dev/host/redact"
	sredact "demiurge.dev/shared/redact"
)

// StderrWindow bounds what of a stdio server's stderr reaches the log: the
// last StderrWindow characters before the connection closed.
const StderrWindow = 12000

// stderrTail keeps the last StderrWindow*4 bytes a server wrote to stderr
// (enough for StderrWindow characters of any UTF-8), never blocking the
// writer.
type stderrTail struct {
	mu   sync.Mutex
	buf  []byte
	done chan struct{} // closed when the pipe reached EOF
}

func newStderrTail() *stderrTail { return &stderrTail{done: make(chan struct{})} }

const stderrKeep = StderrWindow * utf8.UTFMax

func (t *stderrTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if len(p) > stderrKeep {
		p = p[len(p)-stderrKeep:]
	}
	if over := len(t.buf) + len(p) - stderrKeep; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

// drain copies the pipe into the tail until EOF, then closes done: the
// server's stderr ending is how a dead stdio server is noticed.
func (t *stderrTail) drain(r *os.File) {
	defer close(t.done)
	defer r.Close()
	buf := make([]byte, 8192)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			t.Write(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// redactedWindow redacts all that is kept (the declaration's values, then
// well-known token formats) and only then cuts the window, so that a
// secret the cut would split is replaced while it is whole.
func (t *stderrTail) redactedWindow(r *sredact.Replacer) string {
	t.mu.Lock()
	s := string(t.buf)
	t.mu.Unlock()
	return lastRunes(hredact.Text(r.String(s)), StderrWindow)
}

// lastRunes is the last n characters of s, starting on a rune boundary.
func lastRunes(s string, n int) string {
	if c := utf8.RuneCountInString(s); c > n {
		skip := c - n
		for i := range s {
			if skip == 0 {
				return s[i:]
			}
			skip--
		}
	}
	return s
}

// MaxStderrLog bounds logs/mcp-stderr.log: an entry that would take it
// past this many bytes first moves it to mcp-stderr.log.1 (replacing the
// one there), so that a server that fails over and over (each close
// appends up to StderrWindow characters) never fills the disk: the two
// files hold at most 2*MaxStderrLog plus one entry.
const MaxStderrLog = 4 << 20

// stderrLogMu serializes this process's appends and rotations.
var stderrLogMu sync.Mutex

// appendStderrLog appends a closed server's redacted stderr window to
// STATE/logs/mcp-stderr.log, a private file in a private directory,
// rotated at MaxStderrLog.
func appendStderrLog(stateDir, server, reason, window string) error {
	if stateDir == "" || strings.TrimSpace(window) == "" {
		return nil
	}
	dir := filepath.Join(stateDir, "logs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("mcp stderr log: %w", err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("mcp stderr log: %w", err)
	}
	text := window
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	entry := fmt.Sprintf("=== %s MCP server %s closed (%s)\n%s", time.Now().UTC().Format(time.RFC3339), server, reason, text)
	name := filepath.Join(dir, "mcp-stderr.log")
	stderrLogMu.Lock()
	defer stderrLogMu.Unlock()
	f, err := os.OpenFile(name, os.O_CREATE|os.O_APPEND|os.O_WRONLY|syscallNoFollow, 0o600)
	if err != nil {
		return fmt.Errorf("mcp stderr log: %w", err)
	}
	if fi, serr := f.Stat(); serr != nil || fi.Size()+int64(len(entry)) > MaxStderrLog {
		// Rotate: the full file becomes .1, the entry starts a new one.
		f.Close()
		if serr != nil {
			return fmt.Errorf("mcp stderr log: %w", serr)
		}
		if err := os.Rename(name, name+".1"); err != nil {
			return fmt.Errorf("mcp stderr log: %w", err)
		}
		if f, err = os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_APPEND|os.O_WRONLY|syscallNoFollow, 0o600); err != nil {
			return fmt.Errorf("mcp stderr log: %w", err)
		}
	}
	defer f.Close()
	if err := f.Chmod(0o600); err != nil {
		return fmt.Errorf("mcp stderr log: %w", err)
	}
	_, err = f.WriteString(entry)
	return err
}

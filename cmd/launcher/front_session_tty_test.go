package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSessionOnATerminalIsTheFrontEnds: on a terminal, the interactive
// session through the small front end has the full CLI's line editor,
// asks its approvals with the card the host rendered and shows what the
// full CLI shows (the same screen, stdout and exit status), without
// running the full host binary.
func TestSessionOnATerminalIsTheFrontEnds(t *testing.T) {
	r := newRig(t)
	r.startHost()
	// Each line is typed once the screen shows its cue.
	steps := []struct{ cue, typed string }{
		{"Type /help for commands.", `/call write_file {"path":"a.txt","content":"one\ntwo\n"}` + "\r"},
		{"allow? [o]nce", "huh\r"},
		{"unrecognised answer", "o\r"},
		{"── write_file", "/tools quiet\r"},
		{"yield_until", "/approvals\r"},
		{"no session approvals", "/quit\r"},
	}
	drive := func(binary string) (string, result) {
		done := 0
		return r.ptyDrive(binary, true, func(shown string) (string, bool) {
			if done < len(steps) && strings.Contains(shown, steps[done].cue) {
				done++
				return steps[done-1].typed, true
			}
			return "", false
		})
	}
	var both []string
	var results []result
	for _, binary := range []string{HostBinary, "demiurge"} {
		os.Remove(filepath.Join(r.ws, "a.txt"))
		screen, res := drive(binary)
		both = append(both, visible(screen))
		results = append(results, blank(res))
	}
	if both[0] != both[1] || results[0] != results[1] {
		t.Errorf("the session on a terminal: the full CLI and the launcher differ\nfull: %q\n%s\nlauncher: %q\n%s", both[0], results[0], both[1], results[1])
	}
	if b, err := os.ReadFile(filepath.Join(r.ws, "a.txt")); err != nil || string(b) != "one\ntwo\n" || !strings.Contains(both[1], "approval needed: write_file") ||
		results[1].code != 0 {
		t.Fatalf("the session's write: %q %v\n%q\n%s", b, err, both[1], results[1])
	}
	marker := filepath.Join(t.TempDir(), "ran")
	renameStub(t, filepath.Join(r.bin, HostBinary), marker)
	os.Remove(filepath.Join(r.ws, "a.txt"))
	screen, res := drive("demiurge")
	if got := visible(screen); got != both[1] || blank(res) != results[1] {
		t.Errorf("with the full host stubbed: %q %s\nwant %q %s", got, blank(res), both[1], results[1])
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Fatalf("the session on a terminal ran the full host: %s", b)
	}
}

// visible is the screen's lines as they end up shown: the line editor
// redraws its line after each key, and when it does (how often, with
// which erasures) depends on timing, not on which binary draws.
func visible(screen string) string {
	screen = strings.NewReplacer(" \b", "", "\x1b[J", "", "\b", "").Replace(runIDs.ReplaceAllString(screenOf(screen), "X"))
	var lines []string
	for _, l := range strings.Split(screen, "\n") {
		if i := strings.LastIndex(strings.TrimRight(l, "\r "), "\r"); i >= 0 {
			l = l[i+1:]
		}
		lines = append(lines, strings.TrimRight(l, "\r "))
	}
	return strings.Join(lines, "\n")
}

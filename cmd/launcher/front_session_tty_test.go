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
			// The first line waits for the line editor's prompt (see promptAfter).
			if done < len(steps) && strings.Contains(shown, steps[done].cue) && (done > 0 || promptAfter(shown, steps[0].cue)) {
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

// TestSessionStopOnATerminal: Ctrl-C while the model thinks stops the
// turn through the small front end as through the full CLI (the host
// cancels it, the session goes on), and /quit then ends it, exit 0.
func TestSessionStopOnATerminal(t *testing.T) {
	r := newRig(t)
	model := slowModel(t)
	r.startHost()
	var shown []string
	var results []result
	for i, binary := range []string{HostBinary, "demiurge"} {
		step := 0
		screen, res := r.ptyDriveEnv(binary, []string{"OPENAI_API_KEY=sk-test-openai-0123456789"}, true, func(s string) (string, bool) {
			switch {
			case step == 0 && promptAfter(s, "/stop stops a turn."):
				// Typed at the line editor's prompt: typed earlier, the
				// terminal (not yet raw) echoes it where it happens to be.
				step++
				return "think\r", true
			case step == 1 && len(model.Requests()) > i:
				step++
				return "\x03", true
			case step == 2 && strings.Contains(s, "(turn stopped; the session goes on)"):
				step++
				return "/quit\r", true
			}
			return "", false
		}, "--model", "openai:gpt-test", "--base-url", model.URL+"/v1")
		shown = append(shown, visible(screen))
		results = append(results, blank(res))
	}
	if shown[0] != shown[1] || results[0] != results[1] || results[1].code != 0 || !strings.Contains(shown[1], "^C: stopping the foreground turn") {
		t.Fatalf("Ctrl-C on a terminal: the full CLI and the launcher differ\nfull: %q\n%s\nlauncher: %q\n%s", shown[0], results[0], shown[1], results[1])
	}
}

// promptAfter reports whether the screen shows the line editor's prompt
// after line.
func promptAfter(screen, line string) bool {
	i := strings.Index(screen, line)
	return i >= 0 && strings.Contains(screen[i:], "> ")
}

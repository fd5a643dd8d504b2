package mcp

import (
	"encoding/hex"
	"strings"
	"testing"
	"unicode"

	"demiurge.dev/host/termtext"
)

// hostile is what a server writes to take over the operator's terminal:
// erase the line, move up (to overwrite what was printed above), an OSC 52
// clipboard write, a C1 CSI, a newline that starts a line of its own, and
// a bidi override.
const hostile = "\x1b[2K\x1b[1A\x1b]52;c;aGk=\a\u009b2J\nwarning: all clear \u202eevil"

// drives says what in s would act on a terminal rather than print: a
// control character (newline only where allowed) or a bidi or other
// format character.
func drives(s string, newlines bool) string {
	for _, r := range s {
		if r == '\n' && newlines {
			continue
		}
		if termtext.Replaced(r) || r == '\n' || unicode.Is(unicode.Cf, r) {
			return string(r)
		}
	}
	return ""
}

// TestAServersOwnWordsNeverDriveTheTerminal: what a server says of itself
// (its error messages, its serverInfo, its tool names and definitions)
// reaches mcp list, mcp test, the warnings of every catalog and the mcp
// review screen, where the operator decides whether to accept a changed
// definition. None of it may move the cursor, erase lines or start a line
// of its own there: it is shown escaped.
func TestAServersOwnWordsNeverDriveTheTerminal(t *testing.T) {
	f := newFixture(t)
	f.ask.allow(ConnectTool("down"), ConnectTool("docs"))
	say := "env: {SAY_HEX: " + hex.EncodeToString([]byte(hostile)) + "}\n"
	f.server("down", "scripted", "args: [error-at=initialize]\n"+say)
	const fetch = `{"name":"fetch","inputSchema":{"type":"object"}}`
	f.server("docs", "scripted", "env: {SAY_HEX: "+hex.EncodeToString([]byte(hostile))+", TOOLS: '["+fetch+"]'}\n")
	r := f.resolve()
	down, docs := state(t, r, "down"), state(t, r, "docs")
	if down.Status != StatusFailed || !strings.Contains(down.Diagnostic, `\x1b[2K`) {
		t.Fatalf("the failing server's state: %+v", down)
	}
	if c := drives(down.Diagnostic, false); c != "" {
		t.Errorf("the failing server's diagnostic holds %q: %q", c, down.Diagnostic)
	}
	if docs.Status != StatusConnected || drives(docs.ServerInfo, false) != "" {
		t.Errorf("the server's info reaches mcp list raw: %q", docs.ServerInfo)
	}
	for _, st := range f.pool.Connected() {
		if c := drives(st.ServerInfo, false); c != "" {
			t.Errorf("a connected server's info holds %q: %q", c, st.ServerInfo)
		}
	}

	// A new tool named to erase the review screen's lines, a changed one
	// whose description does, and one left out for its schema.
	f.server("docs", "scripted", "env: {SAY_HEX: "+hex.EncodeToString([]byte(hostile))+", TOOLS: '"+
		`[{"name":"fetch","description":"\u001b[1A\u001b[2K\u009b1A\u200f ok","inputSchema":{"type":"object"}},`+
		`{"name":"x\u001b[2K\u001b[1Ay\u009b\u200f","inputSchema":{"type":"object"}},`+
		`{"name":"bad\u001b[2K","inputSchema":{"type":"object","properties":{"\u001b[2K\u009b":7}}}]`+"'}\n")
	docs = state(t, f.resolve(), "docs")
	if len(docs.Quarantined) != 2 || len(docs.Refused) != 1 {
		t.Fatalf("the changed server's state: %+v", docs)
	}
	for _, q := range docs.Quarantined {
		if c := drives(q.Diagnostic, false); c != "" {
			t.Errorf("quarantine diagnostic holds %q: %q", c, q.Diagnostic)
		}
	}
	for _, d := range docs.Refused {
		if c := drives(d, false); c != "" {
			t.Errorf("refusal holds %q: %q", c, d)
		}
	}
	_, items := reviewHashes(t, f, "docs")
	if len(items) != 2 {
		t.Fatalf("pending: %+v", items)
	}
	for _, it := range items {
		if c := drives(it.Diff, true); c != "" {
			t.Errorf("the review diff of %q holds %q:\n%s", it.Tool, c, it.Diff)
		}
		if c := drives(ShownToolName(it.Tool), false); c != "" {
			t.Errorf("the review names the tool %q with %q", it.Tool, c)
		}
	}
	if !strings.Contains(items[1].Diff, `\u009b`) && !strings.Contains(items[0].Diff, `\u009b`) {
		t.Errorf("the diffs do not show the C1 escape as text:\n%s\n%s", items[0].Diff, items[1].Diff)
	}
}

package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"demiurge.dev/host/providers/providertest"
)

// call sends one request and waits for its reply.
func (p *acpPeer) call(id int, method, params string) map[string]any {
	p.t.Helper()
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
	return p.reply(id)
}

// until collects every line up to and with the reply to id.
func (p *acpPeer) until(id int) []map[string]any {
	p.t.Helper()
	var got []map[string]any
	p.next(fmt.Sprintf("reply %d", id), func(m map[string]any) bool {
		got = append(got, m)
		return m["id"] == float64(id) && m["method"] == nil
	})
	return got
}

// openSession initializes the peer (with caps as its clientCapabilities)
// and opens a session in the workspace.
func (p *acpPeer) openSession(ws, caps string) string {
	p.t.Helper()
	if r := p.call(1, "initialize", `{"protocolVersion":1,"clientCapabilities":`+caps+`}`); r["result"] == nil {
		p.t.Fatalf("initialize: %v", r)
	}
	r := p.call(2, "session/new", `{"cwd":"`+ws+`","mcpServers":[]}`)
	res, _ := r["result"].(map[string]any)
	sid, _ := res["sessionId"].(string)
	if sid == "" {
		p.t.Fatalf("session/new: %v", r)
	}
	return sid
}

// hiddenInTitle is a title's first character an editor would not show
// as it is: a control, a bidi control, a tag or another format character.
func hiddenInTitle(s string) (rune, bool) {
	for _, r := range s {
		if r < 0x20 || r >= 0x7f && r < 0xa0 || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 ||
			r >= 0xe0000 && r <= 0xe007f || r == 0x200b || r == 0x200f || r == 0xfeff {
			return r, true
		}
	}
	return 0, false
}

// TestACPToolTitlesAreInert: a tool name the model wrote (an OSC title,
// a screen clear, a bidi override, invisible Unicode tag characters that
// spell "AB", a zero-width space) reaches the editor's tool call title
// inert, both live and when session/load replays the stored conversation.
func TestACPToolTitlesAreInert(t *testing.T) {
	e := newHostEnv(t)
	evil := "\x1b]0;PWNED\x07evil\u202e\U000E0041\U000E0042\u200b\x1b[2J"
	srv := providertest.NewServer("anthropic", []providertest.Step{
		{ToolCalls: []providertest.ToolCall{{ID: "call_1", Name: evil, Args: `{"path":"a.txt"}`}}},
		{Text: []string{"done"}},
	})
	defer srv.Close()
	p := startACPPeer(t, e, srv.URL)
	sid := p.openSession(e.ws, `{}`)
	p.send(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[{"type":"text","text":"go"}]}}`)
	live := p.until(3)
	p.in.Close()

	srv2 := providertest.NewServer("anthropic", []providertest.Step{{Text: []string{"x"}}})
	defer srv2.Close()
	q := startACPPeer(t, e, srv2.URL)
	q.call(1, "initialize", `{"protocolVersion":1,"clientCapabilities":{}}`)
	q.send(`{"jsonrpc":"2.0","id":2,"method":"session/load","params":{"sessionId":"` + sid + `","cwd":"` + e.ws + `","mcpServers":[]}}`)
	loaded := q.until(2)
	for what, lines := range map[string][]map[string]any{"live": live, "load": loaded} {
		var titles []string
		for _, m := range lines {
			params, _ := m["params"].(map[string]any)
			u, _ := params["update"].(map[string]any)
			if u["sessionUpdate"] == "tool_call" {
				titles = append(titles, u["title"].(string))
			}
		}
		if len(titles) != 1 || !strings.Contains(titles[0], "evil") {
			t.Fatalf("%s: titles %q", what, titles)
		}
		if r, hidden := hiddenInTitle(titles[0]); hidden {
			b, _ := json.Marshal(titles[0])
			t.Errorf("%s: the title %s holds %U", what, b, r)
		}
	}
}

// TestACPReplayRedactsArgumentsAsLive: session/load sends a stored call's
// arguments redacted as the live tool_call update did (a credential the
// model wrote into an argument: the stored record holds the model's
// words raw, and the replay sent them to the editor as they were).
func TestACPReplayRedactsArgumentsAsLive(t *testing.T) {
	e := newHostEnv(t)
	key := "sk-ant-api03-" + strings.Repeat("a", 90) + "AA"
	srv := providertest.NewServer("anthropic", []providertest.Step{
		{ToolCalls: []providertest.ToolCall{{ID: "call_1", Name: "read_file", Args: `{"path":"a.txt","note":"` + key + ` AKIAIOSFODNN7EXAMPLE"}`}}},
		{Text: []string{"done"}},
	})
	defer srv.Close()
	rawInput := func(lines []map[string]any) []string {
		var out []string
		for _, m := range lines {
			params, _ := m["params"].(map[string]any)
			u, _ := params["update"].(map[string]any)
			if u["sessionUpdate"] == "tool_call" {
				out = append(out, jsonOf(u["rawInput"]))
			}
		}
		return out
	}
	p := startACPPeer(t, e, srv.URL)
	sid := p.openSession(e.ws, `{}`)
	p.send(promptLine("3", sid, "go"))
	live := rawInput(p.until(3))
	p.in.Close()
	q := startACPPeer(t, e, srv.URL)
	q.call(1, "initialize", `{"protocolVersion":1,"clientCapabilities":{}}`)
	q.send(`{"jsonrpc":"2.0","id":2,"method":"session/load","params":{"sessionId":"` + sid + `","cwd":"` + e.ws + `","mcpServers":[]}}`)
	loaded := rawInput(q.until(2))
	if len(live) != 1 || len(loaded) != 1 || live[0] != loaded[0] {
		t.Fatalf("live raw input %q, replayed %q", live, loaded)
	}
	if strings.Contains(loaded[0], key) || strings.Contains(loaded[0], "AKIAIOSFODNN7EXAMPLE") || !strings.Contains(loaded[0], "redacted") {
		t.Errorf("the replayed raw input: %s", loaded[0])
	}
}

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"demiurge.dev/host/providers/providertest"
)

// readmeSection is the README's section under heading.
func readmeSection(t *testing.T, heading string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	start := strings.Index(s, "\n"+heading+"\n")
	if start < 0 {
		t.Fatalf("the README has no section %q", heading)
	}
	end := strings.Index(s[start+1:], "\n## ")
	if end < 0 {
		return s[start:]
	}
	return s[start : start+1+end]
}

var jsonFence = regexp.MustCompile("(?s)```json\n(.*?)```")

// TestREADMEACPClientConfigs: both editor configurations in the README's
// ACP section parse as the editors read them (agent_servers, a
// "Demiurge" entry); each, started as written ("demiurge" is this build's
// binary, the test's state and scripted model's address go first), is an
// ACP agent that initializes, opens a session and answers a prompt.
func TestREADMEACPClientConfigs(t *testing.T) {
	blocks := jsonFence.FindAllStringSubmatch(readmeSection(t, "## Demiurge in the editor: ACP"), -1)
	if len(blocks) != 2 {
		t.Fatalf("want 2 configurations (Zed, JetBrains), found %d", len(blocks))
	}
	for i, blk := range blocks {
		var cfg struct {
			AgentServers map[string]struct {
				Type    string            `json:"type"`
				Command string            `json:"command"`
				Args    []string          `json:"args"`
				Env     map[string]string `json:"env"`
			} `json:"agent_servers"`
		}
		if err := json.Unmarshal([]byte(blk[1]), &cfg); err != nil {
			t.Fatalf("block %d: %v\n%s", i, err, blk[1])
		}
		a, ok := cfg.AgentServers["Demiurge"]
		if !ok || a.Command != "demiurge" || len(a.Args) == 0 || a.Args[len(a.Args)-1] != "acp" {
			t.Fatalf("block %d: %+v", i, cfg)
		}
		if i == 0 && a.Type != "custom" {
			t.Errorf("Zed's entry is of type %q, want custom", a.Type)
		}
		e := newHostEnv(t)
		srv := providertest.NewServer("anthropic", []providertest.Step{{Text: []string{"Hello from the editor."}}})
		defer srv.Close()
		c := e.cmd(append([]string{"--base-url", srv.URL, "--model", "anthropic:claude-test"}, a.Args...)...)
		for k, v := range a.Env {
			c.Env = append(c.Env, k+"="+v)
		}
		p := startACPCommand(t, c)
		p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
		if r := p.reply(1); r["result"] == nil {
			t.Fatalf("block %d: initialize: %v", i, r)
		}
		p.send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"` + e.ws + `","mcpServers":[]}}`)
		r := p.reply(2)
		res, _ := r["result"].(map[string]any)
		if res == nil {
			t.Fatalf("block %d: session/new: %v", i, r)
		}
		sid, _ := res["sessionId"].(string)
		p.send(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[{"type":"text","text":"hi"}]}}`)
		chunk := p.next("the answer", func(m map[string]any) bool {
			params, _ := m["params"].(map[string]any)
			u, _ := params["update"].(map[string]any)
			return m["method"] == "session/update" && u["sessionUpdate"] == "agent_message_chunk"
		})
		if b, _ := json.Marshal(chunk); !strings.Contains(string(b), "Hello from the editor.") {
			t.Errorf("block %d: the answer: %s", i, b)
		}
		if res, _ := p.reply(3)["result"].(map[string]any); res == nil || res["stopReason"] != "end_turn" {
			t.Errorf("block %d: the prompt's end: %v", i, res)
		}
	}
}

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"demiurge.dev/host/providers/providertest"
)

// acpPeer is a raw JSON-RPC line peer of `demiurge acp`: what a broken or
// late editor sends, byte for byte.
type acpPeer struct {
	t      *testing.T
	in     io.WriteCloser
	lines  chan map[string]any
	stderr *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func startACPPeer(t *testing.T, e *hostEnv, modelURL string) *acpPeer {
	t.Helper()
	c := e.cmd("--model", "anthropic:claude-test", "--base-url", modelURL, "acp")
	c.Env = append(c.Env, "ANTHROPIC_API_KEY=sk-ant-test-key-0123456789")
	return startACPCommand(t, c)
}

// startACPCommand starts c, an acp agent, as the peer's.
func startACPCommand(t *testing.T, c *exec.Cmd) *acpPeer {
	t.Helper()
	p := &acpPeer{t: t, lines: make(chan map[string]any, 64), stderr: &syncBuffer{}}
	c.Stderr = p.stderr
	var err error
	if p.in, err = c.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.in.Close(); c.Wait() })
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = map[string]any{"unparsable": sc.Text()}
			}
			p.lines <- m
		}
		close(p.lines)
	}()
	return p
}

func (p *acpPeer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

// next is the next line that matches; the others (updates) are skipped.
func (p *acpPeer) next(what string, match func(map[string]any) bool) map[string]any {
	p.t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case m, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("the agent ended before %s; stderr:\n%s", what, p.stderr.String())
			}
			if match(m) {
				return m
			}
		case <-timeout:
			p.t.Fatalf("no %s in 60 s; stderr:\n%s", what, p.stderr.String())
		}
	}
}

func (p *acpPeer) reply(id int) map[string]any {
	return p.next(fmt.Sprintf("reply %d", id), func(m map[string]any) bool { return m["id"] == float64(id) && m["method"] == nil })
}

func rpcError(m map[string]any) (code int, text string) {
	e, _ := m["error"].(map[string]any)
	if e == nil {
		return 0, ""
	}
	b, _ := json.Marshal(e)
	c, _ := e["code"].(float64)
	return int(c), string(b)
}

// TestACPBadInput: what a broken or late editor sends gets a clear
// answer and loses nothing: a line that is not JSON (a parse error with
// id null), an unknown method, a prompt to a session that is not open, a
// load of a session that does not exist, a relative cwd, an answer to a
// request never made; and a permission answer that comes after the turn
// was cancelled approves nothing (the file is not written, stderr says
// the answer was dropped), and the session takes the next prompt.
func TestACPBadInput(t *testing.T) {
	e := newHostEnv(t)
	srv := providertest.NewServer("anthropic", []providertest.Step{
		{ToolCalls: []providertest.ToolCall{{ID: "call_late", Name: "write_file", Args: `{"path":"late.txt","content":"x\n"}`}}},
		{Text: []string{"Still here."}},
	})
	defer srv.Close()
	p := startACPPeer(t, e, srv.URL)

	p.send(`this is not json`)
	m := p.next("a parse error", func(m map[string]any) bool { _, ok := m["error"]; return ok && m["id"] == nil })
	if code, text := rpcError(m); code != -32700 || !strings.Contains(text, "Parse error") {
		t.Errorf("a line that is not JSON: %v", m)
	}
	p.send(`{"jsonrpc":"2.0","id":1,"method":"nope/nothing","params":{}}`)
	if code, text := rpcError(p.reply(1)); code != -32601 || !strings.Contains(text, "nope/nothing") {
		t.Errorf("an unknown method: %d %s", code, text)
	}
	p.send(`{"jsonrpc":"2.0","id":77,"result":{"outcome":{"outcome":"selected","optionId":"allow_once"}}}`)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	if r := p.reply(2); r["result"] == nil {
		t.Fatalf("initialize after bad input: %v", r)
	}
	if !p.stderrSays("an answer to request 77, which no longer waits for one") {
		t.Errorf("an answer to a request never made: stderr %q", p.stderr.String())
	}
	p.send(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"nobody","prompt":[{"type":"text","text":"hi"}]}}`)
	if code, text := rpcError(p.reply(3)); code != -32602 || !strings.Contains(text, "no session nobody on this connection") {
		t.Errorf("a prompt to an unknown session: %d %s", code, text)
	}
	p.send(`{"jsonrpc":"2.0","id":4,"method":"session/load","params":{"sessionId":"s-none","cwd":"` + e.ws + `","mcpServers":[]}}`)
	if code, text := rpcError(p.reply(4)); code != -32602 || !strings.Contains(text, "no session s-none of yours") {
		t.Errorf("a load of an unknown session: %d %s", code, text)
	}
	p.send(`{"jsonrpc":"2.0","id":5,"method":"session/new","params":{"cwd":"relative/dir","mcpServers":[]}}`)
	if code, text := rpcError(p.reply(5)); code != -32602 || !strings.Contains(text, "cwd must be an absolute path") {
		t.Errorf("a relative cwd: %d %s", code, text)
	}
	p.send(`{"jsonrpc":"2.0","id":9,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`)
	if code, text := rpcError(p.reply(9)); code != -32602 || !strings.Contains(text, "outside this demiurge's workspace") {
		t.Errorf("a project outside the workspace: %d %s", code, text)
	}
	p.send(`{"jsonrpc":"2.0","id":6,"method":"session/new","params":{"cwd":"` + e.ws + `","mcpServers":[]}}`)
	r := p.reply(6)
	sid, _ := r["result"].(map[string]any)["sessionId"].(string)
	if sid == "" {
		t.Fatalf("session/new: %v", r)
	}

	// A permission request left unanswered, the turn cancelled, then the
	// late answer.
	p.send(`{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[{"type":"text","text":"write late.txt"}]}}`)
	ask := p.next("a permission request", func(m map[string]any) bool { return m["method"] == "session/request_permission" })
	askID, _ := json.Marshal(ask["id"])
	t0 := time.Now()
	p.send(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"` + sid + `"}}`)
	r = p.reply(7)
	if d := time.Since(t0); d > 15*time.Second {
		t.Errorf("the cancel took %v", d)
	}
	if res, _ := r["result"].(map[string]any); res == nil || res["stopReason"] != "cancelled" {
		t.Fatalf("the cancelled prompt: %v", r)
	}
	p.send(`{"jsonrpc":"2.0","id":` + string(askID) + `,"result":{"outcome":{"outcome":"selected","optionId":"allow_once"}}}`)
	p.send(`{"jsonrpc":"2.0","id":8,"method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[{"type":"text","text":"still there?"}]}}`)
	r = p.reply(8)
	if res, _ := r["result"].(map[string]any); res == nil || res["stopReason"] != "end_turn" {
		t.Fatalf("the next prompt: %v", r)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "late.txt")); !os.IsNotExist(err) {
		t.Errorf("a late answer wrote late.txt: %v", err)
	}
	if !p.stderrSays("an answer to request " + string(askID) + ", which no longer waits for one") {
		t.Errorf("the late answer was not reported: stderr %q", p.stderr.String())
	}
}

// stderrSays waits a while for text on the agent's stderr: the agent
// reports a stray answer from the reader's goroutine, and its stderr
// reaches the buffer through the pipe's copier, neither ordered with the
// replies on stdout.
func (p *acpPeer) stderrSays(text string) bool {
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if strings.Contains(p.stderr.String(), text) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"demiurge.dev/host/providers/providertest"
)

// acpNodeClient is the directory of testdata/acp-node's client.mjs beside
// the official ACP TypeScript SDK, installed from its lock file into
// .cache/acp-node (or DEMIURGE_TEST_ACP_NODE); skipped, saying why,
// without node, npm or the registry.
func acpNodeClient(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	repo := filepath.Join(filepath.Dir(file), "..", "..")
	return installedNodeClients(t, filepath.Join(filepath.Dir(file), "testdata", "acp-node"),
		"DEMIURGE_TEST_ACP_NODE", filepath.Join(repo, ".cache", "acp-node"))
}

// acpReport is what client.mjs prints.
type acpReport struct {
	Initialize struct {
		ProtocolVersion   int `json:"protocolVersion"`
		AgentCapabilities struct {
			LoadSession bool `json:"loadSession"`
		} `json:"agentCapabilities"`
	} `json:"initialize"`
	Sessions []string `json:"sessions"`
	Updates  []struct {
		SessionID string         `json:"sessionId"`
		Update    map[string]any `json:"update"`
	} `json:"updates"`
	Permissions []struct {
		Params struct {
			SessionID string `json:"sessionId"`
			ToolCall  struct {
				ToolCallID string `json:"toolCallId"`
				Title      string `json:"title"`
				Content    []any  `json:"content"`
			} `json:"toolCall"`
			Options []struct {
				OptionID string `json:"optionId"`
				Kind     string `json:"kind"`
				Name     string `json:"name"`
			} `json:"options"`
		} `json:"params"`
		Answered string `json:"answered"`
	} `json:"permissions"`
	Stops          []string `json:"stops"`
	Errors         []string `json:"errors"`
	UnknownSession struct {
		Code    int            `json:"code"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	} `json:"unknownSession"`
	List        acpList `json:"list"`
	ListOutside acpList `json:"listOutside"`
	AfterClose  struct {
		Code int            `json:"code"`
		Data map[string]any `json:"data"`
	} `json:"afterClose"`
	Fatal        string           `json:"fatal"`
	MS           []int            `json:"ms"`
	Elicitations []map[string]any `json:"elicitations"`
	Editor       []struct {
		Method string         `json:"method"`
		Params map[string]any `json:"params"`
	} `json:"editor"`
}

type acpList struct {
	Sessions []struct {
		SessionID string `json:"sessionId"`
		Cwd       string `json:"cwd"`
		Title     string `json:"title"`
		UpdatedAt string `json:"updatedAt"`
	} `json:"sessions"`
}

// runACPClient runs client.mjs with plan against `demiurge acp` of e.
func runACPClient(t *testing.T, e *hostEnv, dir, modelURL string, plan map[string]any) (acpReport, string) {
	t.Helper()
	flags := []string{"--model", "anthropic:claude-test", "--base-url", modelURL}
	if extra, ok := plan["flags"].([]string); ok {
		flags = append(flags, extra...)
		delete(plan, "flags")
	}
	args := e.command(append(flags, "acp")...).Args
	plan["cmd"] = args
	plan["cwd"] = e.ws
	b, _ := json.Marshal(plan)
	c := exec.Command("node", filepath.Join(dir, "client.mjs"))
	c.Env = append(e.env(), "ACP_PLAN="+string(b), "ANTHROPIC_API_KEY=sk-ant-test-key-0123456789")
	var stderr strings.Builder
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		t.Fatalf("client.mjs: %v\n%s\n%s", err, out, stderr.String())
	}
	var rep acpReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("the client's report: %v\n%s\n%s", err, out, stderr.String())
	}
	if rep.Fatal != "" {
		t.Fatalf("the client failed: %s\nstderr:\n%s", rep.Fatal, stderr.String())
	}
	return rep, stderr.String()
}

// updatesOf are the session's updates of one kind.
func (r acpReport) updatesOf(session, kind string) []map[string]any {
	var out []map[string]any
	for _, u := range r.Updates {
		if u.SessionID == session && u.Update["sessionUpdate"] == kind {
			out = append(out, u.Update)
		}
	}
	return out
}

// agentText is the session's agent message chunks joined.
func (r acpReport) agentText(session string) string {
	var b strings.Builder
	for _, u := range r.updatesOf(session, "agent_message_chunk") {
		if c, ok := u["content"].(map[string]any); ok {
			s, _ := c["text"].(string)
			b.WriteString(s)
		}
	}
	return b.String()
}

// callUpdates are the tool_call and tool_call_update updates of one call.
func (r acpReport) callUpdates(session, id string) []map[string]any {
	var out []map[string]any
	for _, u := range r.Updates {
		k := u.Update["sessionUpdate"]
		if u.SessionID == session && (k == "tool_call" || k == "tool_call_update") && u.Update["toolCallId"] == id {
			out = append(out, u.Update)
		}
	}
	return out
}

func lastStatus(updates []map[string]any) string {
	st := ""
	for _, u := range updates {
		if s, ok := u["status"].(string); ok {
			st = s
		}
	}
	return st
}

// TestACPWithTheTypeScriptClient: the official ACP TypeScript SDK as the
// editor, `demiurge acp` as its agent, a scripted Anthropic server as the
// model. A prompt turn with a read (a tool call with kind, title,
// location, content); a write the editor allows once (a diff) and one it
// rejects (failed, nothing written); allow always covers the same write
// again in this session and in no other; a turn cancelled mid-stream;
// then a second process loads the session: its conversation comes back
// and the next turn carries it to the model.
func TestACPWithTheTypeScriptClient(t *testing.T) {
	dir := acpNodeClient(t)
	e := newHostEnv(t)
	srv := providertest.NewServer("anthropic", []providertest.Step{
		{Text: []string{"Reading."}, ToolCalls: []providertest.ToolCall{{ID: "call_read", Name: "read_file", Args: `{"path":"a.txt"}`}}},
		{Text: []string{"It says ", "hello."}},
		{ToolCalls: []providertest.ToolCall{{ID: "call_w1", Name: "write_file", Args: `{"path":"b.txt","content":"first\n"}`}}},
		{Text: []string{"Written."}},
		{ToolCalls: []providertest.ToolCall{{ID: "call_w2", Name: "write_file", Args: `{"path":"c.txt","content":"never\n"}`}}},
		{Text: []string{"Not written."}},
		{ToolCalls: []providertest.ToolCall{{ID: "call_w3", Name: "write_file", Args: `{"path":"b.txt","content":"second\n"}`}}},
		{ToolCalls: []providertest.ToolCall{{ID: "call_w4", Name: "write_file", Args: `{"path":"b.txt","content":"second\n"}`}}},
		{Text: []string{"Twice."}},
		{Text: []string{"Thinking for a very long time"}, DelayMS: 60_000},
		{ToolCalls: []providertest.ToolCall{{ID: "call_w5", Name: "write_file", Args: `{"path":"b.txt","content":"second\n"}`}}},
		{Text: []string{"Other session."}},
		{ToolCalls: []providertest.ToolCall{{ID: "call_ask", Name: "clarify", Args: `{"question":"Which colour?","choices":["teal","amber"]}`}}},
		{Text: []string{"Teal it is."}},
	})
	defer srv.Close()
	rep, stderr := runACPClient(t, e, dir, srv.URL, map[string]any{"steps": []map[string]any{
		{"prompt": "what does a.txt say?"},
		{"prompt": "write b.txt", "answers": []string{"allow_once"}},
		{"prompt": "write c.txt", "answers": []string{"reject_once"}},
		{"prompt": "write b.txt twice", "answers": []string{"allow_always"}},
		{"prompt": "think long", "cancelAfterMs": 1500},
		{"prompt": "write b.txt elsewhere", "answers": []string{"reject_once"}, "newSession": true},
		{"prompt": "ask me", "answers": []string{"allow_once"}},
	}})
	if rep.Initialize.ProtocolVersion != 1 || !rep.Initialize.AgentCapabilities.LoadSession {
		t.Fatalf("initialize: %+v", rep.Initialize)
	}
	if len(rep.Sessions) != 2 {
		t.Fatalf("sessions %v", rep.Sessions)
	}
	s1, s2 := rep.Sessions[0], rep.Sessions[1]
	if len(rep.MS) == 6 && rep.MS[4]-rep.MS[3] > 20_000 {
		t.Errorf("the cancelled turn took %d ms to end", rep.MS[4]-rep.MS[3])
	}
	want := []string{"end_turn", "end_turn", "end_turn", "end_turn", "cancelled", "end_turn", "end_turn"}
	if strings.Join(rep.Stops, " ") != strings.Join(want, " ") {
		t.Fatalf("stop reasons %v (errors %v), want %v\nstderr:\n%s", rep.Stops, rep.Errors, want, stderr)
	}
	if len(rep.updatesOf(s1, "available_commands_update")) != 1 {
		t.Errorf("no available_commands_update for %s", s1)
	}
	if got := rep.agentText(s1); !strings.Contains(got, "Reading.It says hello.") || strings.Contains(got, "Thinking") {
		t.Errorf("agent text %q", got)
	}

	// The read: kind, title, location, and the result as content.
	read := rep.callUpdates(s1, "call_read")
	if len(read) < 2 || read[0]["sessionUpdate"] != "tool_call" || read[0]["kind"] != "read" || lastStatus(read) != "completed" {
		t.Fatalf("the read's updates: %v", read)
	}
	if locs, _ := read[0]["locations"].([]any); len(locs) != 1 || locs[0].(map[string]any)["path"] != filepath.Join(e.ws, "a.txt") {
		t.Errorf("the read's locations: %v", read[0]["locations"])
	}
	if b, _ := json.Marshal(read[len(read)-1]["content"]); !strings.Contains(string(b), "from the workspace") {
		t.Errorf("the read's content: %s", b)
	}

	// The permission requests: w1 allowed once, w2 rejected, w3 allowed
	// for the session (w4 then asks nothing), w5 in the other session
	// asked again and rejected.
	var asked []string
	for _, p := range rep.Permissions {
		asked = append(asked, p.Params.ToolCall.ToolCallID+":"+p.Answered)
	}
	if got := strings.Join(asked, " "); !strings.HasPrefix(got, "call_w1:allow_once call_w2:reject_once call_w3:allow_always call_w5:reject_once clarify-") || len(asked) != 5 {
		t.Fatalf("permission requests %s", got)
	}
	// The clarify question: its choices as options, the first chosen, and
	// the model told the answer.
	ask := rep.Permissions[4].Params
	if len(ask.Options) != 3 || ask.Options[0].Name != "teal" || ask.Options[1].Name != "amber" || ask.Options[2].Kind != "reject_once" || !strings.Contains(ask.ToolCall.Title, "Which colour?") {
		t.Errorf("the clarify question: %+v", ask)
	}
	reqs := srv.Requests()
	if last := string(reqs[len(reqs)-1].Body); !strings.Contains(last, "The operator answered: teal") {
		t.Errorf("the model was not told the answer: %.300s", last)
	}
	p := rep.Permissions[0]
	var kinds []string
	for _, o := range p.Params.Options {
		kinds = append(kinds, o.Kind+"="+o.Name)
	}
	if got := strings.Join(kinds, ","); got != "allow_once=Allow once,allow_always=Allow always (this session),reject_once=Reject" {
		t.Errorf("the options: %s", got)
	}
	if b, _ := json.Marshal(p.Params.ToolCall.Content); !strings.Contains(string(b), "approval needed: write_file") {
		t.Errorf("the card: %s", b)
	}
	if rep.Permissions[3].Params.SessionID != s2 {
		t.Errorf("w5 asked in %s, want %s", rep.Permissions[3].Params.SessionID, s2)
	}
	w1 := rep.callUpdates(s1, "call_w1")
	if lastStatus(w1) != "completed" || w1[0]["kind"] != "edit" {
		t.Fatalf("w1: %v", w1)
	}
	// A new file's diff: no old text.
	if d := acpDiffOf(w1[len(w1)-1]["content"]); d == nil || d["newText"] != "first\n" || d["oldText"] != nil {
		t.Errorf("w1's diff: %v", d)
	}
	if lastStatus(rep.callUpdates(s1, "call_w2")) != "failed" || lastStatus(rep.callUpdates(s1, "call_w4")) != "completed" || lastStatus(rep.callUpdates(s2, "call_w5")) != "failed" {
		t.Errorf("w2 %v w4 %v w5 %v", rep.callUpdates(s1, "call_w2"), rep.callUpdates(s1, "call_w4"), rep.callUpdates(s2, "call_w5"))
	}
	if b, err := os.ReadFile(filepath.Join(e.ws, "b.txt")); err != nil || string(b) != "second\n" {
		t.Errorf("b.txt: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "c.txt")); !os.IsNotExist(err) {
		t.Errorf("c.txt was written after a reject: %v", err)
	}
	if rep.UnknownSession.Code != -32602 || !strings.Contains(rep.UnknownSession.Data["error"].(string), "no session no-such-session") {
		t.Errorf("a prompt to an unknown session: %+v", rep.UnknownSession)
	}

	// A second process loads the first session: the conversation comes
	// back, and the next turn carries it to the model.
	srv2 := providertest.NewServer("anthropic", []providertest.Step{{Text: []string{"Welcome back."}}})
	defer srv2.Close()
	rep2, stderr2 := runACPClient(t, e, dir, srv2.URL, map[string]any{"load": s1, "steps": []map[string]any{{"prompt": "again"}}})
	if strings.Join(rep2.Stops, " ") != "end_turn" {
		t.Fatalf("after load: %v %v\n%s", rep2.Stops, rep2.Errors, stderr2)
	}
	var said []string
	for _, u := range rep2.updatesOf(s1, "user_message_chunk") {
		said = append(said, u["content"].(map[string]any)["text"].(string))
	}
	if len(said) < 4 || said[0] != "what does a.txt say?" {
		t.Errorf("the replayed user messages: %q", said)
	}
	if !strings.Contains(rep2.agentText(s1), "It says hello.") || !strings.HasSuffix(rep2.agentText(s1), "Welcome back.") {
		t.Errorf("the replayed and new agent text: %q", rep2.agentText(s1))
	}
	reqs = srv2.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "what does a.txt say?") || !strings.Contains(string(reqs[0].Body), "again") {
		t.Errorf("the loaded session's request does not carry its history")
	}
}

package main

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/agents"
	"demiurge.dev/host/providers"
	pt "demiurge.dev/host/providers/providertest"
	"demiurge.dev/host/toolhost"
	"demiurge.dev/host/turn"
)

// TestSubagentsOfAnotherPrincipalAreNotShown: a child agent made by a
// session of another principal (an MCP client's, say) on the same state is
// a missing id to the operator's `demiurge subagents ID` (the same answer,
// word for word) and is not listed; the operator's own child, made the
// same way, is shown.
func TestSubagentsOfAnotherPrincipalAreNotShown(t *testing.T) {
	builtin, _ := testPlugins(t)
	state := t.TempDir()
	foreign := spawnChildAs(t, state, builtin, "mcp:other-client")
	own := spawnChildAs(t, state, builtin, "")

	cli := func(args ...string) (string, error) {
		cmd := exec.Command(demiurgeBinary(t), append([]string{"--state", state, "--plugin-dir", builtin}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "DEMIURGE_HOST=off")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := cli("subagents", own)
	if err != nil || !strings.Contains(out, "goal:      say hi") {
		t.Fatalf("the operator's own child: %v\n%s", err, out)
	}
	missingID := "task_" + strings.Repeat("0", len(foreign)-len("task_"))
	missing, err1 := cli("subagents", missingID)
	other, err2 := cli("subagents", foreign)
	if err1 == nil || err2 == nil {
		t.Fatalf("a missing or foreign id answered: %s / %s", missing, other)
	}
	if strings.ReplaceAll(other, foreign, "ID") != strings.ReplaceAll(missing, missingID, "ID") || !strings.Contains(other, "no such task") {
		t.Fatalf("a foreign id answers\n%s\nand a missing one\n%s", other, missing)
	}
	list, err := cli("subagents")
	if err != nil || !strings.Contains(list, own) || strings.Contains(list, foreign) {
		t.Fatalf("the list: %v\n%s", err, list)
	}
	if json, _ := cli("subagents", "--json"); strings.Contains(json, foreign) || strings.Contains(json, "mcp:other-client") {
		t.Fatalf("the JSON list shows the other principal's child:\n%s", json)
	}
}

// spawnChildAs runs one child agent through the spawn gate of a host on
// state opened as principal ("" is the local user) and returns its task id.
func spawnChildAs(t *testing.T, state, builtin, principal string) string {
	t.Helper()
	h, err := toolhost.Open(toolhost.Options{Workspace: t.TempDir(), StateDir: state, BuiltinPluginDir: builtin, Principal: principal})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	srv := pt.NewServer(pt.KindOpenAI, []pt.Step{{Text: []string{"hi there"}}})
	defer srv.Close()
	hc := &http.Client{Transport: &http.Transport{}}
	defer hc.CloseIdleConnections()
	model, err := providers.New(providers.Config{Provider: providers.ProviderOpenAICompatible, Name: "test", BaseURL: srv.URL + "/v1"},
		func(string) string { return "" }, hc)
	if err != nil {
		t.Fatal(err)
	}
	store, err := h.Store()
	if err != nil {
		t.Fatal(err)
	}
	gate := &agents.Gate{Host: h, NewLoop: func(child *toolhost.Session) (*turn.Loop, error) {
		return &turn.Loop{Provider: model, Session: child, Store: store, System: "You are a test agent."}, nil
	}}
	gate.Install()
	c, err := gate.Spawn(context.Background(), h.Session(), "turn_a", "call_1",
		agents.Request{Goal: "say hi", NotifyPolicy: agents.NotifySilent, ContextMode: "isolated"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if r, ok := c.Wait(ctx); !ok || r.Status != agents.StatusCompleted {
		t.Fatalf("the child of %q: %+v (ended: %t)", principal, r, ok)
	}
	return c.TaskID
}

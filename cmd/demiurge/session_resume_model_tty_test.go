package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"demiurge.dev/host/providers/providertest"
)

// TestTTYSessionResumeTakesItsModel: /session resume in the interactive
// session switches to the model the resumed session remembers, as `run
// --resume` does (the key still comes from the environment, by the
// variable the model names); /session new goes back to the session's
// opening model (agent.yaml's here). In process and through the host.
func TestTTYSessionResumeTakesItsModel(t *testing.T) {
	for _, host := range []string{"off", "on"} {
		t.Run("host="+host, func(t *testing.T) {
			srv := providertest.NewServer("anthropic", []providertest.Step{
				{Text: []string{"one"}}, {Text: []string{"two"}}, {Text: []string{"three"}},
			})
			t.Cleanup(srv.Close)
			builtin, _ := testPlugins(t)
			ws, state, coreDir := t.TempDir(), t.TempDir(), t.TempDir()
			t.Cleanup(func() { stopTestHost(state) })
			if err := os.WriteFile(filepath.Join(coreDir, "agent.yaml"), []byte(
				"toolsets: [coding]\ncapabilities: [fs.read]\nmodel: {provider: anthropic, name: claude-from-core}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			env := []string{"DEMIURGE_HOST=" + host, "DEMIURGE_HOST_IDLE_EXIT=2m", "ANTHROPIC_API_KEY=sk-ant-test-key-0123456789"}
			first := exec.Command(demiurgeBinary(t), "--state", state, "--plugin-dir", builtin, "--workspace", ws,
				"--model", "anthropic:claude-remembered", "--base-url", srv.URL, "run", "--json", "first")
			first.Env = append(os.Environ(), append(env[:1:1], env[2])...) // a one-shot run, in process
			out, err := first.Output()
			if err != nil {
				t.Fatalf("run: %v\n%s", err, out)
			}
			id := regexp.MustCompile(`ses_[0-9a-f]{20}`).FindString(string(out))
			if id == "" {
				t.Fatalf("no session id in %s", out)
			}

			s := startTTYEnv(t, env, state, ws, "--core", coreDir, "--base-url", srv.URL)
			s.see("chatting with anthropic:claude-from-core")
			s.line("/session resume " + id)
			s.see("session " + id + " resumed")
			s.see("chatting with anthropic:claude-remembered (the session's model)")
			s.line("go on")
			s.see("two")
			s.line("/session new")
			s.see("chatting with anthropic:claude-from-core (the session's model)")
			s.line("fresh")
			s.see("three")
			quit := time.Now()
			s.line("/quit")
			s.waitExit(60 * time.Second)
			t.Logf("/quit to exit: %v", time.Since(quit))

			var models []string
			for _, r := range srv.Requests() {
				var body struct {
					Model string `json:"model"`
				}
				_ = json.Unmarshal(r.Body, &body)
				models = append(models, body.Model)
			}
			want := []string{"claude-remembered", "claude-remembered", "claude-from-core"}
			if len(models) != 3 || models[0] != want[0] || models[1] != want[1] || models[2] != want[2] {
				t.Fatalf("models asked: %v, want %v", models, want)
			}
		})
	}
}

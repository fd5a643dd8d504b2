package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"demiurge.dev/plugins/coding/terminal"
	"demiurge.dev/sdk"
)

// terminalCall is one terminal Execute with a fresh workspace, artifact
// root and runner.
type terminalCall struct {
	ws, artifacts string
	runner        *terminal.Runner
	tool          sdk.Tool
}

func newTerminalCall(t *testing.T) *terminalCall {
	t.Helper()
	base := t.TempDir()
	c := &terminalCall{ws: filepath.Join(base, "ws"), artifacts: filepath.Join(base, "artifacts"), runner: terminal.NewRunner()}
	c.runner.Grace = 200 * time.Millisecond
	if err := os.MkdirAll(filepath.Join(c.ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	c.tool = newTerminal(c.runner)
	t.Cleanup(c.runner.Shutdown)
	return c
}

func (c *terminalCall) ctx(secrets map[string]string) *sdk.Context {
	return &sdk.Context{
		Context: context.Background(), Tool: "terminal", Workspace: c.ws, ArtifactRoot: c.artifacts,
		Env: []string{"PATH=/usr/bin:/bin", "HOME=" + c.ws}, Secrets: secrets,
	}
}

func (c *terminalCall) run(t *testing.T, args string, secrets map[string]string) *sdk.Result {
	t.Helper()
	res, err := c.tool.Execute(c.ctx(secrets), json.RawMessage(args))
	if err != nil {
		t.Fatalf("terminal %s: Go error %v; the model's mistakes must be error results", args, err)
	}
	return res
}

func TestTerminalBadInput(t *testing.T) {
	c := newTerminalCall(t)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(c.ws, "escape")); err != nil {
		t.Fatal(err)
	}
	huge, _ := json.Marshal(map[string]any{"command": "echo " + strings.Repeat("x", 3<<20)})
	cases := []struct {
		name, args, code, says string
	}{
		{"empty command", `{"command":""}`, "invalid_argument", "command is empty"},
		{"blank command", `{"command":"  \n\t"}`, "invalid_argument", "command is empty"},
		{"several megabytes", string(huge), "invalid_argument", "the most is 65536"},
		{"invalid UTF-8", "{\"command\":\"echo \xff\xfe\"}", "invalid_argument", "not valid UTF-8"},
		{"replacement character", `{"command":"echo \ufffd"}`, "invalid_argument", "U+FFFD"},
		{"NUL byte", `{"command":"echo a\u0000b"}`, "invalid_argument", "NUL"},
		{"timeout zero", `{"command":"true","timeout":0}`, "invalid_argument", "timeout must be 1 to 3600"},
		{"timeout negative", `{"command":"true","timeout":-5}`, "invalid_argument", "timeout must be 1 to 3600"},
		{"timeout over the maximum", `{"command":"true","timeout":3601}`, "invalid_argument", "timeout must be 1 to 3600"},
		{"unknown argument", `{"command":"true","shell":"zsh"}`, "invalid_argument", "unknown field"},
		{"background with bindings", `{"command":"true","background":true,"secret_bindings":[{"source":"env:X"}]}`, "invalid_argument", "foreground"},
		{"cwd outside", `{"command":"true","cwd":"` + outside + `"}`, "invalid_cwd", "outside the workspace"},
		{"cwd dot-dot", `{"command":"true","cwd":"../"}`, "invalid_cwd", "outside the workspace"},
		{"cwd through a symlink out", `{"command":"true","cwd":"escape"}`, "invalid_cwd", "outside the workspace"},
		{"cwd missing", `{"command":"true","cwd":"nope"}`, "invalid_cwd", "does not exist"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := c.run(t, tc.args, nil)
			if !res.IsError || res.ErrorCode != tc.code || !strings.Contains(res.Content, tc.says) {
				t.Fatalf("got %s %q, want %s containing %q", res.ErrorCode, res.Content, tc.code, tc.says)
			}
			if len(res.Content) > 300 {
				t.Fatalf("model-facing error of %d bytes; keep it short", len(res.Content))
			}
		})
	}
	if c.runner.Live() != 0 {
		t.Fatal("a refused call started a command")
	}
}

func TestTerminalNeedsTheHostEnvironment(t *testing.T) {
	c := newTerminalCall(t)
	ctx := c.ctx(nil)
	ctx.Env = nil
	res, err := c.tool.Execute(ctx, json.RawMessage(`{"command":"true"}`))
	if err != nil || !res.IsError || res.ErrorCode != "no_environment" {
		t.Fatalf("got %+v, %v; want no_environment", res, err)
	}
}

func TestTerminalRunsAndShowsViews(t *testing.T) {
	c := newTerminalCall(t)
	res := c.run(t, `{"command":"echo hi; echo oops >&2; pwd; exit 2","cwd":"sub"}`, nil)
	if res.IsError {
		t.Fatalf("error result: %s", res.Content)
	}
	var model map[string]any
	if err := json.Unmarshal([]byte(res.Content), &model); err != nil {
		t.Fatalf("model view is not JSON: %v\n%s", err, res.Content)
	}
	real, _ := filepath.EvalSymlinks(filepath.Join(c.ws, "sub"))
	if model["exit_code"] != float64(2) || model["output"] != "hi\n"+real+"\n" || model["stderr"] != "oops\n" {
		t.Fatalf("model view %v", model)
	}
	display := *res.DisplayOutput
	if !strings.HasPrefix(display, "$ echo hi; echo oops >&2; pwd; exit 2\ncwd: sub\nexit code: 2\nstdout (") ||
		strings.Index(display, "stdout (") > strings.Index(display, "stderr (") {
		t.Fatalf("display view does not lead with command, cwd, exit code, stdout, stderr:\n%s", display)
	}
	b, _ := json.Marshal(res.Structured)
	var st struct {
		ExitCode   int    `json:"exit_code"`
		ExitReason string `json:"exit_reason"`
		DurationMS *int64 `json:"duration_ms"`
		Stdout     struct {
			Tail     string `json:"tail"`
			Bytes    int64  `json:"bytes"`
			Artifact string `json:"artifact"`
		} `json:"stdout"`
		Spawn struct {
			PID         int    `json:"pid"`
			PGID        int    `json:"pgid"`
			SpawnID     string `json:"spawn_id"`
			StartMarker string `json:"start_marker"`
		} `json:"spawn"`
		Cwd string `json:"cwd"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	if st.ExitCode != 2 || st.ExitReason != "exited" || st.DurationMS == nil || st.Spawn.PID == 0 ||
		st.Spawn.PGID != st.Spawn.PID || st.Spawn.SpawnID == "" || st.Spawn.StartMarker == "" || st.Cwd != "sub" {
		t.Fatalf("structured %s", b)
	}
	if filepath.IsAbs(st.Stdout.Artifact) {
		t.Fatalf("artifact %q must be relative to the artifact root", st.Stdout.Artifact)
	}
	if got, err := os.ReadFile(filepath.Join(c.artifacts, st.Stdout.Artifact)); err != nil || string(got) != st.Stdout.Tail {
		t.Fatalf("artifact %q, %v; want the whole stdout", got, err)
	}
}

func TestTerminalTimeoutIsAnErrorResult(t *testing.T) {
	c := newTerminalCall(t)
	res := c.run(t, `{"command":"sleep 30","timeout":1}`, nil)
	if !res.IsError || res.ErrorCode != "timeout" || !strings.Contains(res.Content, "ran out of time") {
		t.Fatalf("got %s %s", res.ErrorCode, res.Content)
	}
}

// A bound secret reaches the command by its target and no view of the
// result, nor the artifact, holds its value.
func TestTerminalSecretBinding(t *testing.T) {
	c := newTerminalCall(t)
	const value = "ghp_s3cr3tValue0123456789"
	secrets := map[string]string{"GH_TOKEN": value}
	res := c.run(t, `{"command":"echo token=$GH_TOKEN; echo $GH_TOKEN >&2; printf '%s' \"$GH_TOKEN\" | wc -c"}`, secrets)
	if res.IsError {
		t.Fatalf("error: %s", res.Content)
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res.Structured); err != nil {
		t.Fatal(err)
	}
	for name, view := range map[string]string{"model": res.Content, "display": *res.DisplayOutput, "structured": b.String()} {
		if strings.Contains(view, value) {
			t.Fatalf("%s view holds the secret:\n%s", name, view)
		}
		if !strings.Contains(view, "<redacted:GH_TOKEN>") {
			t.Fatalf("%s view does not show the marker:\n%s", name, view)
		}
	}
	if !strings.Contains(res.Content, "25") {
		t.Fatalf("the command did not see the whole value: %s", res.Content)
	}
	err := filepath.Walk(c.artifacts, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if strings.Contains(string(data), value) {
			t.Errorf("artifact %s holds the secret", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestTerminalSecretExpiryEndsTheCommand(t *testing.T) {
	c := newTerminalCall(t)
	ctx := c.ctx(map[string]string{"TOKEN": "expiring-secret-1"})
	ctx.SecretsExpire = 300 * time.Millisecond
	res, err := c.tool.Execute(ctx, json.RawMessage(`{"command":"sleep 30","timeout":60}`))
	if err != nil || !res.IsError || res.ErrorCode != "expired" {
		t.Fatalf("got %+v, %v; want an expired error result", res, err)
	}
}

// FuzzTerminalArgs: whatever the model sends, the argument check never
// panics, and what it accepts is a runnable command with a timeout in
// range and no bindings in the background.
func FuzzTerminalArgs(f *testing.F) {
	f.Add([]byte(`{"command":"echo hi"}`))
	f.Add([]byte(`{"command":"true","timeout":3600,"cwd":"sub","env":{"A":"b"}}`))
	f.Add([]byte(`{"command":"x","timeout":0}`))
	f.Add([]byte(`{"command":"x","background":true,"secret_bindings":[{"source":"env:A"}]}`))
	f.Add([]byte("{\"command\":\"\xff\"}"))
	f.Add([]byte(`{"command":"a\u0000b"}`))
	f.Add([]byte(`{"command":"x"} {"command":"y"}`))
	f.Add([]byte(`{"command":"x","timeout":1e400}`))
	f.Fuzz(func(t *testing.T, args []byte) {
		p, timeout, bad := parseTerminalArgs(args)
		if bad != nil {
			if !bad.IsError || bad.ErrorCode != "invalid_argument" {
				t.Fatalf("refusal %+v", bad)
			}
			return
		}
		if strings.TrimSpace(p.Command) == "" || len(p.Command) > MaxCommandBytes || strings.ContainsRune(p.Command, 0) ||
			timeout <= 0 || timeout > MaxTimeoutSeconds*time.Second || (p.Background && len(p.SecretBindings) > 0) {
			t.Fatalf("accepted %q: %+v, timeout %v", args, p, timeout)
		}
	})
}

func TestTerminalRefusesBindingsOntoLoaderVariables(t *testing.T) {
	c := newTerminalCall(t)
	for _, target := range []string{"PATH", "LD_PRELOAD", "BASH_ENV", "bad=name"} {
		res, err := c.tool.Execute(c.ctx(map[string]string{target: "some-secret-value"}), json.RawMessage(`{"command":"true"}`))
		if err == nil || res != nil {
			t.Fatalf("target %s: %+v, %v; want a host error", target, res, err)
		}
	}
	if c.runner.Live() != 0 {
		t.Fatal("a command started")
	}
}

func TestWithTimezone(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		zone string
		want []string
	}{
		{[]string{"PATH=/bin", "TZ=UTC"}, "Asia/Tokyo", []string{"PATH=/bin", "TZ=Asia/Tokyo"}},
		{[]string{"PATH=/bin"}, "Europe/Berlin", []string{"PATH=/bin", "TZ=Europe/Berlin"}},
		{[]string{"PATH=/bin", "TZ=UTC"}, "", []string{"PATH=/bin", "TZ=UTC"}},
		{[]string{"TZX=1"}, "UTC", []string{"TZX=1", "TZ=UTC"}},
	} {
		if got := withTimezone(tc.env, tc.zone); strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("withTimezone(%q, %q) = %q, want %q", tc.env, tc.zone, got, tc.want)
		}
	}
}

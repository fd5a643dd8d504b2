package frontargs

import (
	"reflect"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	none := env(nil)
	for _, tc := range []struct {
		args   []string
		getenv func(string) string
		want   Request
		ok     bool
	}{
		{[]string{"host", "status"}, none, Request{Command: "host status"}, true},
		{[]string{"host", "status", "--json"}, none, Request{Command: "host status", JSON: true}, true},
		{[]string{"--state", "/s", "host", "status"}, none, Request{Command: "host status", State: "/s"}, true},
		{[]string{"--state=/s", "host", "status", "--json"}, none, Request{Command: "host status", State: "/s", JSON: true}, true},
		{[]string{"host", "status"}, env(map[string]string{"DEMIURGE_STATE": "/e"}), Request{Command: "host status", State: "/e"}, true},
		{[]string{"--state=/s", "host", "status"}, env(map[string]string{"DEMIURGE_STATE": "/e"}), Request{Command: "host status", State: "/s"}, true},
		// Everything else is the full host's.
		{[]string{"host", "status"}, env(map[string]string{"DEMIURGE_HOST": "off"}), Request{}, false},
		{[]string{"host", "status"}, env(map[string]string{"DEMIURGE_OUTPUT_CAP_MIB": "x"}), Request{}, false},
		{[]string{"host", "status"}, env(map[string]string{"DEMIURGE_ARTIFACT_BUDGET_MIB": "1"}), Request{}, false},
		{[]string{"host", "stop"}, none, Request{}, false},
		{[]string{"host"}, none, Request{}, false},
		{[]string{"host", "status", "--json", "--json"}, none, Request{}, false},
		{[]string{"host", "status", "extra"}, none, Request{}, false},
		{[]string{"host", "status", "-h"}, none, Request{}, false},
		{[]string{"--json", "host", "status"}, none, Request{}, false},
		{[]string{"--state", "host", "status"}, none, Request{}, false},
		{[]string{"--state="}, none, Request{}, false},
		{[]string{"--state=", "host", "status"}, none, Request{}, false},
		{[]string{"--state", "/s", "--state", "/t", "host", "status"}, none, Request{}, false},
		{[]string{"--log-level=debug", "host", "status"}, none, Request{}, false},
		{[]string{"--state-x=/s", "host", "status"}, none, Request{}, false},
		{[]string{"tools", "list"}, none, Request{}, false},
		// No command: the interactive session (through the host).
		{nil, none, Request{Command: "session"}, true},
		{[]string{"-q", "--tool-display", "full", "--approve", "allow:read_file"}, none, Request{Command: "session", Quiet: true, ToolDisplay: "full", Approve: []string{"allow:read_file"}}, true},
		{[]string{"--principal", "p"}, none, Request{}, false},
		{[]string{"--model", "a", "--model", "b"}, none, Request{}, false},
	} {
		got, ok := Parse(tc.args, tc.getenv)
		if ok != tc.ok || (ok && !reflect.DeepEqual(got, tc.want)) {
			t.Errorf("Parse(%q) = %+v, %v; want %+v, %v", tc.args, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParseToolsCall(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	none := env(nil)
	call := func(r Request) Request { r.Command = "tools call"; return r }
	for _, tc := range []struct {
		args   []string
		getenv func(string) string
		want   Request
		ok     bool
	}{
		{[]string{"tools", "call", "read_file"}, none, call(Request{Tool: "read_file"}), true},
		{[]string{"tools", "call", "read_file", `{"path":"a"}`}, none, call(Request{Tool: "read_file", Args: `{"path":"a"}`}), true},
		{[]string{"tools", "call", "--json", "t", "{}"}, none, call(Request{Tool: "t", Args: "{}", JSON: true}), true},
		{[]string{"--state", "/s", "--core=/c", "--workspace", "w", "--plugin-dir=/p", "tools", "call", "t"}, none,
			call(Request{Tool: "t", State: "/s", Core: "/c", Workspace: "w", PluginDir: "/p"}), true},
		{[]string{"tools", "call", "t"}, env(map[string]string{"DEMIURGE_STATE": "/s", "DEMIURGE_CORE": "/c", "DEMIURGE_WORKSPACE": "w",
			"DEMIURGE_PLUGIN_DIR": "/p", "DEMIURGE_TIMEZONE": "UTC"}),
			call(Request{Tool: "t", State: "/s", Core: "/c", Workspace: "w", PluginDir: "/p", Timezone: "UTC"}), true},
		{[]string{"--core", "/f", "tools", "call", "t"}, env(map[string]string{"DEMIURGE_CORE": "/c"}), call(Request{Tool: "t", Core: "/f"}), true},
		// Everything else is the full host's.
		{[]string{"tools", "call", "t"}, env(map[string]string{"DEMIURGE_HOST": "off"}), Request{}, false},
		{[]string{"tools", "call", "t"}, env(map[string]string{"DEMIURGE_DETACHED_REPORT_FD": "3"}), Request{}, false},
		{[]string{"tools", "call", "t"}, env(map[string]string{"DEMIURGE_OUTPUT_CAP_MIB": "9"}), Request{}, false},
		{[]string{"tools", "call"}, none, Request{}, false},
		{[]string{"tools", "call", "--json"}, none, Request{}, false},
		{[]string{"tools", "call", "t", "{}", "x"}, none, Request{}, false},
		{[]string{"tools", "call", "t", "{}", "--json"}, none, Request{}, false},
		{[]string{"tools", "call", "--json", "--json", "t"}, none, Request{}, false},
		{[]string{"tools", "call", "--wait", "t"}, none, Request{}, false},
		{[]string{"tools", "call", "--session=s", "t"}, none, Request{}, false},
		{[]string{"tools", "call", "t", "@args.json"}, none, Request{}, false},
		{[]string{"tools", "call", "t", "-"}, none, Request{}, false},
		{[]string{"tools", "call", ""}, none, Request{}, false},
		{[]string{"tools", "call", "help"}, none, Request{}, false},
		{[]string{"tools", "call", "t", "h"}, none, Request{}, false},
		{[]string{"--approve", "allow:t", "tools", "call", "t"}, none, Request{}, false},
		{[]string{"-q", "tools", "call", "t"}, none, call(Request{Tool: "t", Quiet: true}), true},
		{[]string{"--quiet", "--no-color", "--state=/s", "tools", "call", "t"}, none, call(Request{Tool: "t", Quiet: true, NoColor: true, State: "/s"}), true},
		{[]string{"-q", "-q", "tools", "call", "t"}, none, Request{}, false},
		{[]string{"-quiet", "tools", "call", "t"}, none, Request{}, false},
		{[]string{"--quiet=true", "tools", "call", "t"}, none, Request{}, false},
		{[]string{"--no-color=false", "tools", "call", "t"}, none, Request{}, false},
		{[]string{"tools", "call", "-q", "t"}, none, Request{}, false},
		{[]string{"--core-id", "x", "tools", "call", "t"}, none, Request{}, false},
		{[]string{"--core", "/a", "--core", "/b", "tools", "call", "t"}, none, Request{}, false},
		{[]string{"--core=", "tools", "call", "t"}, none, Request{}, false},
		{[]string{"tools", "show", "t"}, none, Request{}, false},
	} {
		got, ok := Parse(tc.args, tc.getenv)
		if ok != tc.ok || (ok && !reflect.DeepEqual(got, tc.want)) {
			t.Errorf("Parse(%q) = %+v, %v; want %+v, %v", tc.args, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParseAudit(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	none := env(nil)
	audit := func(r Request) Request { r.Command = "audit"; return r }
	for _, tc := range []struct {
		args   []string
		getenv func(string) string
		want   Request
		ok     bool
	}{
		{[]string{"audit"}, none, audit(Request{Limit: 50}), true},
		{[]string{"audit", "--json", "--limit", "0"}, none, audit(Request{Limit: 0, JSON: true}), true},
		{[]string{"--state=/s", "audit", "--tool=t", "--kind", "k", "--limit=7"}, none, audit(Request{State: "/s", Tool: "t", Kind: "k", Limit: 7}), true},
		{[]string{"audit"}, env(map[string]string{"DEMIURGE_WORKSPACE": "w"}), audit(Request{Workspace: "w", Limit: 50}), true},
		{[]string{"audit", "--limit", "010"}, none, Request{}, false},
		{[]string{"audit", "--limit", "0x1"}, none, Request{}, false},
		{[]string{"audit", "--limit", "-1"}, none, Request{}, false},
		{[]string{"audit", "--limit", "9999999999"}, none, Request{}, false},
		{[]string{"audit", "--limit"}, none, Request{}, false},
		{[]string{"audit", "--tool", "a", "--tool", "b"}, none, Request{}, false},
		{[]string{"audit", "--json=true"}, none, Request{}, false},
		{[]string{"audit", "--no-color"}, none, Request{}, false},
		{[]string{"--no-color", "audit"}, none, audit(Request{NoColor: true, Limit: 50}), true},
		{[]string{"audit", "x"}, none, Request{}, false},
		{[]string{"audit", "-h"}, none, Request{}, false},
		{[]string{"--log-level", "debug", "audit"}, none, Request{}, false},
		{[]string{"audit"}, env(map[string]string{"DEMIURGE_HOST": "off"}), Request{}, false},
	} {
		got, ok := Parse(tc.args, tc.getenv)
		if ok != tc.ok || (ok && !reflect.DeepEqual(got, tc.want)) {
			t.Errorf("Parse(%q) = %+v, %v; want %+v, %v", tc.args, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParseTasks(t *testing.T) {
	none := func(string) string { return "" }
	off := func(k string) string {
		if k == "DEMIURGE_HOST" {
			return "off"
		}
		return ""
	}
	// The chat's model from the environment, as the full CLI reads it:
	// a turn's request carries it; a command that runs no turn has none.
	model := func(k string) string {
		switch k {
		case "DEMIURGE_MODEL":
			return "openai:m"
		case "DEMIURGE_BASE_URL":
			return "http://127.0.0.1:9/v1"
		}
		return ""
	}
	for _, tc := range []struct {
		args   []string
		getenv func(string) string
		want   Request
		ok     bool
	}{
		{[]string{"tasks", "list"}, none, Request{Command: "tasks list"}, true},
		{[]string{"--state", "/s", "-q", "tasks", "list", "--json"}, none, Request{Command: "tasks list", State: "/s", Quiet: true, JSON: true}, true},
		{[]string{"tasks", "show", "task_1"}, none, Request{Command: "tasks show", Task: "task_1"}, true},
		{[]string{"--workspace=/w", "tasks", "show", "--json", "last"}, none, Request{Command: "tasks show", Workspace: "/w", JSON: true, Task: "last"}, true},
		{[]string{"tasks"}, none, Request{}, false},
		{[]string{"tasks", "list", "x"}, none, Request{}, false},
		{[]string{"tasks", "list", "--json", "--json"}, none, Request{}, false},
		{[]string{"tasks", "show"}, none, Request{}, false},
		{[]string{"tasks", "show", "a", "b"}, none, Request{}, false},
		{[]string{"tasks", "show", "a", "--json"}, none, Request{Command: "tasks show", Task: "a", JSON: true}, true},
		{[]string{"tasks", "show", "--json", "a", "--json"}, none, Request{}, false},
		{[]string{"tasks", "show", "a", "--json", "x"}, none, Request{}, false},
		{[]string{"tasks", "show", "-h"}, none, Request{}, false},
		{[]string{"tasks", "show", "help"}, none, Request{}, false},
		{[]string{"tasks", "show", ""}, none, Request{}, false},
		{[]string{"tasks", "logs", "a"}, none, Request{Command: "tasks logs", Task: "a"}, true},
		{[]string{"tasks", "logs", "a", "--json"}, none, Request{Command: "tasks logs", Task: "a", JSON: true}, true},
		{[]string{"tasks", "logs", "--follow", "a"}, none, Request{Command: "tasks logs", Task: "a", Follow: true}, true},
		{[]string{"tasks", "logs", "a", "-f", "--json"}, none, Request{Command: "tasks logs", Task: "a", Follow: true, JSON: true}, true},
		{[]string{"tasks", "logs", "-f", "a", "--follow"}, none, Request{}, false},
		{[]string{"tasks", "logs", "--f", "a"}, none, Request{}, false},
		{[]string{"tasks", "logs", "--follow=true", "a"}, none, Request{}, false},
		{[]string{"tasks", "show", "--follow", "a"}, none, Request{}, false},
		{[]string{"tasks", "cancel", "a"}, none, Request{Command: "tasks cancel", Task: "a"}, true},
		{[]string{"tasks", "cancel", "--json", "a"}, none, Request{Command: "tasks cancel", Task: "a", JSON: true}, true},
		{[]string{"tasks", "cancel", "a", "b"}, none, Request{}, false},
		{[]string{"tasks", "cancel", "--timeout", "1s", "a"}, none, Request{}, false},
		{[]string{"tasks", "wait", "a"}, none, Request{Command: "tasks wait", Task: "a", Timeout: DefaultWaitTimeout}, true},
		{[]string{"tasks", "wait", "a", "--timeout", "1m30s", "--exit-code", "--json"}, none,
			Request{Command: "tasks wait", Task: "a", Timeout: 90 * time.Second, ExitCode: true, JSON: true}, true},
		{[]string{"tasks", "wait", "--timeout=250ms", "last"}, none, Request{Command: "tasks wait", Task: "last", Timeout: 250 * time.Millisecond}, true},
		{[]string{"tasks", "wait", "--timeout", "0s", "a"}, none, Request{}, false},
		{[]string{"tasks", "wait", "--timeout", "-1s", "a"}, none, Request{}, false},
		{[]string{"tasks", "wait", "--timeout", "soon", "a"}, none, Request{}, false},
		{[]string{"tasks", "wait", "--timeout", "1s", "--timeout", "2s", "a"}, none, Request{}, false},
		{[]string{"tasks", "wait", "a", "--timeout"}, none, Request{}, false},
		{[]string{"tasks", "wait", "-timeout", "1s", "a"}, none, Request{}, false},
		{[]string{"tasks", "wait", "--exit-code=true", "a"}, none, Request{}, false},
		{[]string{"tasks", "wait", "--follow", "a"}, none, Request{}, false},
		{[]string{"tasks", "subagents"}, none, Request{}, false},
		{[]string{"sessions", "list"}, none, Request{Command: "sessions list"}, true},
		{[]string{"--state", "/s", "sessions", "list", "--json"}, none, Request{Command: "sessions list", State: "/s", JSON: true}, true},
		{[]string{"sessions", "show", "last"}, none, Request{Command: "sessions show", Session: "last"}, true},
		{[]string{"sessions", "show", "ses_1", "--json"}, none, Request{Command: "sessions show", Session: "ses_1", JSON: true}, true},
		{[]string{"sessions", "show", "--json", "ses_1", "--json"}, none, Request{}, false},
		{[]string{"sessions", "show"}, none, Request{}, false},
		{[]string{"sessions", "show", "a", "b"}, none, Request{}, false},
		{[]string{"sessions", "show", "-h"}, none, Request{}, false},
		{[]string{"sessions", "show", "help"}, none, Request{}, false},
		{[]string{"sessions", "list", "x"}, none, Request{}, false},
		{[]string{"sessions", "resume", "ses_1", "go on"}, none, Request{Command: "run", Session: "ses_1", Prompt: "go on"}, true},
		{[]string{"sessions"}, none, Request{}, false},
		{[]string{"--principal", "p", "sessions", "list"}, none, Request{}, false},
		{[]string{"sessions", "list"}, off, Request{}, false},
		{[]string{"run", "fix", "it"}, none, Request{Command: "run", Prompt: "fix it"}, true},
		{[]string{"run", "fix", "it"}, model, Request{Command: "run", Model: "openai:m", BaseURL: "http://127.0.0.1:9/v1", Prompt: "fix it"}, true},
		{[]string{"sessions", "list"}, model, Request{Command: "sessions list"}, true},
		{[]string{"--model", "openai:x", "--approve", "allow:a", "--approve=deny:b", "--max-steps", "7", "--tool-display", "full", "run", "--json", "go", "--session", "last", "on"}, none,
			Request{Command: "run", Model: "openai:x", Approve: []string{"allow:a", "deny:b"}, MaxSteps: 7, ToolDisplay: "full", JSON: true, Session: "last", Prompt: "go on"}, true},
		{[]string{"--state", "/s", "-q", "run", "--session=ses_1", "x"}, none, Request{Command: "run", State: "/s", Quiet: true, Session: "ses_1", Prompt: "x"}, true},
		{[]string{"run"}, none, Request{}, false},
		{[]string{"run", "--json"}, none, Request{}, false},
		{[]string{"run", " "}, none, Request{}, false},
		{[]string{"run", "help"}, none, Request{}, false},
		{[]string{"run", "-x"}, none, Request{}, false},
		{[]string{"run", "--", "x"}, none, Request{}, false},
		{[]string{"run", "x", "--model", "openai:x"}, none, Request{}, false},
		{[]string{"run", "--json", "--json", "x"}, none, Request{}, false},
		{[]string{"run", "--session", "a", "--session", "b", "x"}, none, Request{}, false},
		{[]string{"--max-steps", "010", "run", "x"}, none, Request{}, false},
		{[]string{"--max-steps", "-1", "run", "x"}, none, Request{}, false},
		{[]string{"--model", "a:b", "--model", "c:d", "run", "x"}, none, Request{}, false},
		{[]string{"--core-id", "a", "run", "x"}, none, Request{}, false},
		{[]string{"--sandbox", "off", "run", "x"}, none, Request{}, false},
		{[]string{"--principal", "p", "run", "x"}, none, Request{}, false},
		{[]string{"run", "x"}, off, Request{}, false},
		{[]string{"sessions", "resume", "last", "go", "on"}, none, Request{Command: "run", Session: "last", Prompt: "go on"}, true},
		{[]string{"-q", "sessions", "resume", "ses_1", "--json", "x"}, none, Request{Command: "run", Quiet: true, Session: "ses_1", JSON: true, Prompt: "x"}, true},
		{[]string{"sessions", "resume", "ses_1"}, none, Request{}, false},
		{[]string{"sessions", "resume"}, none, Request{}, false},
		{[]string{"sessions", "resume", "help", "x"}, none, Request{}, false},
		{[]string{"sessions", "resume", "--session", "a", "ses_1", "x"}, none, Request{}, false},
		{[]string{"sessions", "resume", "ses_1", " "}, none, Request{}, false},
		{[]string{"mcp", "serve"}, none, Request{Command: "mcp serve", MaxRequestKiB: DefaultMCPMaxRequestKiB, MaxConcurrent: DefaultMCPMaxConcurrent}, true},
		{[]string{"--state", "/s", "--approve", "allow:a", "mcp", "serve", "--principal", "alice", "--max-request-kib=64"}, none,
			Request{Command: "mcp serve", State: "/s", Approve: []string{"allow:a"}, Principal: "alice", MaxRequestKiB: 64, MaxConcurrent: DefaultMCPMaxConcurrent}, true},
		{[]string{"mcp", "serve", "--http", "127.0.0.1:0"}, none,
			Request{Command: "mcp serve", HTTP: "127.0.0.1:0", MaxRequestKiB: DefaultMCPMaxRequestKiB, MaxConcurrent: DefaultMCPMaxConcurrent}, true},
		{[]string{"mcp", "serve", "--allow-origin", "https://a.example", "--http=[::1]:7777", "--token-file", "/t", "--listen-public",
			"--allow-origin=https://b.example", "--max-concurrent", "4"}, none,
			Request{Command: "mcp serve", HTTP: "[::1]:7777", TokenFile: "/t", ListenPublic: true, AllowOrigins: []string{"https://a.example", "https://b.example"},
				MaxRequestKiB: DefaultMCPMaxRequestKiB, MaxConcurrent: 4}, true},
		{[]string{"mcp", "serve", "--http", "0.0.0.0:7777", "--listen-public", "--token-file", "/t"}, none,
			Request{Command: "mcp serve", HTTP: "0.0.0.0:7777", TokenFile: "/t", ListenPublic: true, MaxRequestKiB: DefaultMCPMaxRequestKiB, MaxConcurrent: DefaultMCPMaxConcurrent}, true},
		// What the full CLI refuses, or reads otherwise, is its own.
		{[]string{"mcp", "serve", "--http", "0.0.0.0:7777"}, none, Request{}, false},
		{[]string{"mcp", "serve", "--http", "0.0.0.0:7777", "--listen-public"}, none, Request{}, false},
		{[]string{"mcp", "serve", "--http", "7777"}, none, Request{}, false},
		{[]string{"mcp", "serve", "--token-file", "/t"}, none, Request{}, false},
		{[]string{"mcp", "serve", "--listen-public"}, none, Request{}, false},
		{[]string{"mcp", "serve", "--http", "127.0.0.1:0", "--listen-public", "--listen-public"}, none, Request{}, false},
		{[]string{"mcp", "serve", "--http", "127.0.0.1:0", "--listen-public=true"}, none, Request{}, false},
		{[]string{"mcp", "serve", "--http", "127.0.0.1:0", "--allow-origin", "https://a,https://b"}, none, Request{}, false},
		// urfave's StringSlice trims a value's spaces; the full CLI reads it.
		{[]string{"mcp", "serve", "--http", "127.0.0.1:0", "--allow-origin", " https://a.example"}, none, Request{}, false},
		{[]string{"mcp", "serve", "--http", "127.0.0.1:0", "--allow-origin=https://a.example\t"}, none, Request{}, false},
		{[]string{"mcp", "serve", "--http", "127.0.0.1:0", "--http", "127.0.0.1:1"}, none, Request{}, false},
		{[]string{"mcp", "serve", "--http", "127.0.0.1:0", "--max-concurrent", "010"}, none, Request{}, false},
		{[]string{"mcp", "serve", "--http="}, none, Request{}, false},
		{[]string{"--approve", "allow:terminal,allow:read_file", "mcp", "serve"}, none, Request{}, false},
		{[]string{"--approve", "allow:a", "--approve=allow:b,deny:c", "run", "x"}, none, Request{}, false},
		{[]string{"mcp", "serve", "x"}, none, Request{}, false},
		{[]string{"mcp", "serve", "--principal", "a", "--principal", "b"}, none, Request{}, false},
		{[]string{"mcp", "serve", "--max-request-kib", "0x10"}, none, Request{}, false},
		{[]string{"mcp", "serve", "--principal"}, none, Request{}, false},
		{[]string{"mcp", "list"}, none, Request{}, false},
		{[]string{"mcp", "serve"}, off, Request{}, false},
		{[]string{"--principal", "p", "tasks", "list"}, none, Request{}, false},
		{[]string{"tasks", "list"}, off, Request{}, false},
	} {
		got, ok := Parse(tc.args, tc.getenv)
		if ok != tc.ok || (ok && !reflect.DeepEqual(got, tc.want)) {
			t.Errorf("Parse(%q) = %+v, %v; want %+v, %v", tc.args, got, ok, tc.want, tc.ok)
		}
	}
}

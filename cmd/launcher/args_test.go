package main

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseList(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	base := listRequest{display: "summary"}
	with := func(f func(r *listRequest)) listRequest { r := base; f(&r); return r }
	tests := []struct {
		args string
		ok   bool
		want listRequest
	}{
		{"tools list", true, base},
		{"--state S tools list", true, with(func(r *listRequest) { r.state = "S" })},
		{"--state=S --core C --workspace=W --plugin-dir P --tool-display full tools list", true,
			with(func(r *listRequest) {
				r.state, r.core, r.workspace, r.pluginDir, r.display = "S", "C", "W", "P", "full"
			})},
		{"tools list --json", true, with(func(r *listRequest) { r.json = true })},
		{"tools list --provider openai --json", true, with(func(r *listRequest) { r.provider, r.json = "openai", true })},
		{"tools list --json --provider=gemini", true, with(func(r *listRequest) { r.provider, r.json = "gemini", true })},
		{"--state -odd tools list", true, with(func(r *listRequest) { r.state = "-odd" })},

		{"", false, base},
		{"tools", false, base},
		{"tools show read_file", false, base},
		{"list tools", false, base},
		{"tools list extra", false, base},
		{"tools list --", false, base},
		{"tools list --json --json", false, base},
		{"tools list --json=true", false, base},
		{"tools list --provider", false, base},
		{"tools list --provider=", false, base},
		{"tools list --provider a --provider b", false, base},
		{"tools list --providerx a", false, base},
		{"tools list -h", false, base},
		{"tools list --help", false, base},
		{"--help", false, base},
		{"-state S tools list", false, base},
		{"--state S --state T tools list", false, base},
		{"--state= tools list", false, base},
		{"--state", false, base},
		{"--approve allow:read_file tools list", false, base},
		{"--log-level debug tools list", false, base},
		{"--generate-bash-completion", false, base},
		{"tools --state S list", false, base},
		{"--- tools list", false, base},
	}
	for _, tt := range tests {
		got, ok := parseList(strings.Fields(tt.args), getenv)
		if ok != tt.ok {
			t.Errorf("parseList(%q) ok = %v, want %v", tt.args, ok, tt.ok)
			continue
		}
		if ok && !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseList(%q) = %+v, want %+v", tt.args, got, tt.want)
		}
	}
}

func TestParseListEnvironment(t *testing.T) {
	env := map[string]string{"DEMIURGE_CORE": "ec", "DEMIURGE_WORKSPACE": "ew", "DEMIURGE_STATE": "es", "DEMIURGE_PLUGIN_DIR": "ep"}
	getenv := func(k string) string { return env[k] }
	got, ok := parseList(strings.Fields("tools list"), getenv)
	want := listRequest{core: "ec", workspace: "ew", state: "es", pluginDir: "ep", display: "summary"}
	if !ok || got != want {
		t.Fatalf("from the environment: %+v %v, want %+v", got, ok, want)
	}
	// A flag wins over its variable, as in the full CLI.
	got, ok = parseList(strings.Fields("--state fs --plugin-dir=fp tools list"), getenv)
	want.state, want.pluginDir = "fs", "fp"
	if !ok || got != want {
		t.Fatalf("flags over the environment: %+v %v, want %+v", got, ok, want)
	}
}

// FuzzParseList: argv is untrusted input. The parser never panics, and it
// only accepts a tools list with every word accounted for.
func FuzzParseList(f *testing.F) {
	for _, s := range []string{"tools list", "--state=S tools list --json", "--core C tools list --provider x", "tools\x00list", "--=x tools list", "-- tools list"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		args := strings.Split(s, " ")
		r, ok := parseList(args, func(string) string { return "" })
		if !ok {
			return
		}
		joined := " " + strings.Join(args, " ") + " "
		if !strings.Contains(joined, " tools list ") && !strings.HasSuffix(joined, " tools list ") {
			t.Fatalf("accepted %q, which has no tools list", args)
		}
		for _, v := range []string{r.core, r.workspace, r.state, r.pluginDir, r.provider} {
			if v != "" && !strings.Contains(s, v) {
				t.Fatalf("value %q is not in the arguments %q", v, s)
			}
		}
	})
}

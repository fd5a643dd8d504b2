package main

import (
	"os"
	"strings"
	"testing"
)

// TestToolsListShowThroughHost: with a host running, `tools list` (each
// form) and `tools show` are answered by it, and print what the in-process
// commands print, refusals included.
func TestToolsListShowThroughHost(t *testing.T) {
	e := newHostEnv(t)
	cases := [][]string{
		{"tools", "list"},
		{"tools", "list", "--tool-display", "quiet"},
		{"tools", "list", "--json"},
		{"tools", "list", "--provider", "anthropic"},
		{"tools", "show", "read_file"},
		{"tools", "show", "--json", "read_file"},
		{"tools", "show", "read_fil"},
	}
	inProcess := make([]string, len(cases))
	for i, args := range cases {
		c := e.command(args...)
		c.Env = append(os.Environ(), "HOME="+e.home, "DEMIURGE_HOST=off")
		out, _ := c.CombinedOutput()
		inProcess[i] = string(out)
	}
	if out, stderr, err := e.runHost(t, "host", "start"); err != nil {
		t.Fatalf("host start: %v\n%s%s", err, out, stderr)
	}
	pid := e.hostPID(t)
	for i, args := range cases {
		out, stderr, err := e.runHost(t, args...)
		if got := out + stderr; got != inProcess[i] {
			t.Errorf("%v through the host (err %v):\n%s\nin process:\n%s", args, err, got, inProcess[i])
		}
	}
	if !strings.Contains(inProcess[6], `did you mean "read_file"`) {
		t.Fatalf("the refusal: %s", inProcess[6])
	}
	if e.hostPID(t) != pid {
		t.Fatal("the host changed")
	}
}

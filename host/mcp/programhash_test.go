package mcp

import (
	"os"
	"path/filepath"
	"testing"
)

func TestScriptOf(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "s.js"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "s.py"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "s.sh"), []byte("x"), 0o644)
	in := func(n string) string { return filepath.Join(dir, n) }
	for _, tc := range []struct {
		command string
		args    []string
		want    string
	}{
		{"/usr/bin/node", []string{"s.js"}, in("s.js")},
		{"/usr/bin/node", []string{"--require", "s.py", "s.js"}, in("s.js")},
		{"/usr/bin/node", []string{"-e", "s.js"}, ""},
		{"/usr/bin/python3.12", []string{"-u", "s.py"}, in("s.py")},
		{"/usr/bin/python3", []string{"-m", "s"}, ""},
		{"/usr/bin/python3", []string{"-W", "ignore", in("s.py")}, in("s.py")},
		{"/bin/bash", []string{"--norc", "-e", "s.sh"}, in("s.sh")},
		{"/bin/sh", []string{"-c", "s.sh"}, ""},
		{"/bin/sh", []string{"-o", "s.js", "s.sh"}, in("s.sh")},
		{"/bin/sh", []string{"--", "s.sh"}, in("s.sh")},
		{"/bin/sh", []string{"missing.sh"}, ""},
		{"/opt/server", []string{"s.js"}, ""},
		{"/usr/bin/node", []string{dir}, ""},
	} {
		if got := scriptOf(tc.command, tc.args, dir); got != tc.want {
			t.Errorf("%s %q: %q, want %q", tc.command, tc.args, got, tc.want)
		}
	}
}

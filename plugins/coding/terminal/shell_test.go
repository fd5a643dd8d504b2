package terminal

import (
	"os"
	"path/filepath"
	"testing"
)

func TestResolveShell(t *testing.T) {
	both, onlySh, none, notExec := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	for _, f := range []struct {
		dir, name string
		mode      os.FileMode
	}{{both, "bash", 0o755}, {both, "sh", 0o755}, {onlySh, "sh", 0o755}, {notExec, "bash", 0o644}} {
		if err := os.WriteFile(filepath.Join(f.dir, f.name), []byte("#!/bin/true\n"), f.mode); err != nil {
			t.Fatal(err)
		}
	}
	// The fallbacks when PATH has no shell: /bin/bash, else /bin/sh.
	fallback := "/bin/bash"
	if !isExecutable(fallback) {
		fallback = "/bin/sh"
	}
	cases := []struct {
		name string
		env  []string
		want string
	}{
		{"bash first", []string{"PATH=" + both}, filepath.Join(both, "bash")},
		{"sh when no bash", []string{"PATH=" + onlySh}, filepath.Join(onlySh, "sh")},
		{"bash anywhere on PATH beats sh earlier", []string{"PATH=" + onlySh + ":" + both}, filepath.Join(both, "bash")},
		{"not executable is skipped", []string{"PATH=" + notExec + ":" + onlySh}, filepath.Join(onlySh, "sh")},
		{"relative entries are skipped", []string{"PATH=.:rel"}, fallback},
		{"no PATH", nil, fallback},
		{"empty PATH dir", []string{"PATH=" + none}, fallback},
		{"the last PATH wins", []string{"PATH=" + both, "PATH=" + onlySh}, filepath.Join(onlySh, "sh")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ResolveShell(tc.env)
			if err != nil || got != tc.want {
				t.Fatalf("ResolveShell = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

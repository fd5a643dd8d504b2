//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// BenchmarkWorkspaceRules is what granting a workspace around a hidden
// path costs a confined plugin's start: a workspace of 1000 entries
// holding the state and a .git whose hooks and configuration stay
// read-only (one rule per entry on the way), against one with neither
// (one rule).
func BenchmarkWorkspaceRules(b *testing.B) {
	for _, carve := range []bool{false, true} {
		ws := b.TempDir()
		for i := range 1000 {
			if err := os.WriteFile(filepath.Join(ws, "f"+strconv.Itoa(i)), nil, 0o600); err != nil {
				b.Fatal(err)
			}
		}
		var hidden, ro []string
		if carve {
			for _, d := range []string{".state", ".git/hooks"} {
				if err := os.MkdirAll(filepath.Join(ws, d), 0o700); err != nil {
					b.Fatal(err)
				}
			}
			hidden, ro = []string{filepath.Join(ws, ".state")}, []string{filepath.Join(ws, ".git", "hooks"), filepath.Join(ws, ".git", "config")}
		}
		b.Run(map[bool]string{false: "whole", true: "around-state-and-git"}[carve], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rules, release, err := workspaceRules(ws, hidden, ro, rightsRead|rightsWrite, rightsRead, rightsListDir)
				release()
				if err != nil || len(rules) == 0 {
					b.Fatal(err, len(rules))
				}
			}
		})
	}
}

package shellguard

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkCheckFiles classifies the whole table with the real Files view
// on a real workspace: a git repository made like git init's, the files
// the table names, a tree for grep -r. It is what the host pays per
// command; compare commands/s with BenchmarkCheck (-cpu 1).
func BenchmarkCheckFiles(b *testing.B) {
	base, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	ws := filepath.Join(base, "proj")
	files := map[string]string{
		".git/HEAD": "ref: refs/heads/main\n", ".git/config": plainConfig,
		".git/hooks/pre-commit.sample": "#!/bin/sh\n", ".git/hooks/post-update.sample": "#!/bin/sh\n",
		"README.md": "x\n", "main.go": "package main\n", "log.txt": "x\n", "src/main.go": "package main\n",
		"src/a/b.go": "package a\n", "file.txt": "x\n", "names.txt": "x\n", "data.txt": "x\n", "a.txt": "x\n",
		"b.txt": "x\n", "old.go": "x\n", "new.go": "x\n", "sorted.txt": "x\n", "app.log": "x\n",
	}
	for name, data := range files {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, d := range []string{".git/objects", ".git/refs/heads"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	opts := Options{WorkspaceRoot: ws, Home: base, Files: OSFiles{}}
	b.ReportAllocs()
	n := 0
	cpu0 := cpuTime()
	for b.Loop() {
		for _, r := range table {
			Check(r.cmd, opts)
		}
		n += len(table)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "commands/s")
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(float64(n)/cpu.Seconds(), "commands/cpu-s")
	}
}

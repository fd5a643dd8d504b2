package terminal

import (
	"context"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// testEnv is a minimal child environment.
func testEnv(extra ...string) []string {
	return append([]string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8"}, extra...)
}

// recorder is an Emitter that keeps everything it is sent.
type recorder struct {
	mu        sync.Mutex
	chunks    map[string][]byte
	artifacts []string
	first     time.Time
}

func (r *recorder) Output(stream string, data []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.chunks == nil {
		r.chunks = map[string][]byte{}
	}
	if r.first.IsZero() {
		r.first = time.Now()
	}
	r.chunks[stream] = append(r.chunks[stream], data...)
	return nil
}

func (r *recorder) Artifact(path, _ string, _ int64, _ string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.artifacts = append(r.artifacts, path)
	return nil
}

func (r *recorder) stream(name string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return string(r.chunks[name])
}

// run runs command with a short grace and fails the test on a start error.
func run(t testing.TB, rn *Runner, req Request) (*Result, *recorder) {
	t.Helper()
	rec := &recorder{}
	if req.Emit == nil {
		req.Emit = rec
	}
	if req.Env == nil {
		req.Env = testEnv()
	}
	if req.Dir == "" {
		req.Dir = t.TempDir()
	}
	if req.ArtifactRoot == "" {
		req.ArtifactRoot = t.TempDir()
	}
	if req.Timeout == 0 {
		req.Timeout = 20 * time.Second
	}
	res, err := rn.Run(context.Background(), req)
	if err != nil {
		t.Fatalf("Run(%q): %v", req.Command, err)
	}
	return res, rec
}

func quickRunner() *Runner {
	r := NewRunner()
	r.Grace = 200 * time.Millisecond
	return r
}

// groupGone reports whether no process of the group is left.
func groupGone(t testing.TB, pgid int) bool {
	t.Helper()
	return len(pidsInGroup(t, pgid)) == 0
}

// pidsInGroup scans /proc for live (non-zombie) processes of a group.
func pidsInGroup(t testing.TB, pgid int) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, e := range ents {
		pid := 0
		for _, c := range e.Name() {
			if c < '0' || c > '9' {
				pid = -1
				break
			}
			pid = pid*10 + int(c-'0')
		}
		if pid <= 0 {
			continue
		}
		state, pgrp, _, ok := statBrief(pid)
		if ok && state != 'Z' && pgrp == pgid {
			out = append(out, pid)
		}
	}
	return out
}

// writePieces is the child side of writerChildEnv: spec is hex pieces
// separated by commas, each written with its own write(2).
func writePieces(spec string) int {
	for _, h := range strings.Split(spec, ",") {
		b, err := hex.DecodeString(h)
		if err != nil {
			return 3
		}
		if _, err := os.Stdout.Write(b); err != nil {
			return 4
		}
		time.Sleep(50 * time.Microsecond)
	}
	return 0
}

// readArtifact reads a stream's artifact and checks its mode.
func readArtifact(t testing.TB, root, rel string) string {
	t.Helper()
	if rel == "" {
		t.Fatal("no artifact recorded")
	}
	p := filepath.Join(root, filepath.FromSlash(rel))
	st, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 || !st.Mode().IsRegular() {
		t.Fatalf("artifact %s has mode %v, want a regular 0600 file", rel, st.Mode())
	}
	dst, err := os.Stat(filepath.Dir(p))
	if err != nil {
		t.Fatal(err)
	}
	if dst.Mode().Perm() != 0o700 {
		t.Fatalf("artifact directory has mode %v, want 0700", dst.Mode().Perm())
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

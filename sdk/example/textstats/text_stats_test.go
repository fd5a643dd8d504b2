package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/sdk"
)

// workspace makes a temporary workspace holding files, and a file beside
// it that no call may reach.
func workspace(t *testing.T, files map[string]string) string {
	t.Helper()
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	for name, content := range files {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(base, "outside.txt"), []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return ws
}

func run(t *testing.T, ctx context.Context, ws, path string) (*sdk.Result, error) {
	t.Helper()
	args, _ := json.Marshal(textStatsParams{Path: path})
	// As the host sends it: the path resolved against the workspace.
	resolved := filepath.Clean(path)
	if !filepath.IsAbs(path) {
		resolved = filepath.Join(ws, path)
	}
	return newTextStats().Execute(&sdk.Context{Context: ctx, Workspace: ws, Tool: "text_stats", Paths: map[string]string{"path": resolved}}, args)
}

func TestCountText(t *testing.T) {
	tests := []struct {
		name, content string
		want          textStats // Path is filled in
	}{
		{"ascii", "hello world\nfoo bar baz\n", textStats{Lines: 2, Words: 5, Chars: 24, Bytes: 24}},
		// é and ö are 2 bytes, each CJK and kana character 3.
		{"multi-byte", "héllo wörld\n日本語 テキスト\n", textStats{Lines: 2, Words: 4, Chars: 21, Bytes: 37}},
		{"emoji", "🙂 ok\n", textStats{Lines: 1, Words: 2, Chars: 5, Bytes: 8}},
		{"no final newline", "one two", textStats{Lines: 0, Words: 2, Chars: 7, Bytes: 7}},
		{"empty", "", textStats{}},
		{"runs of white space", "  a\t\tb  \n\n\n", textStats{Lines: 3, Words: 2, Chars: 11, Bytes: 11}},
		// U+00A0 and U+3000 are Unicode spaces: they separate words.
		{"unicode spaces", "a\u00a0b\u3000c", textStats{Words: 3, Chars: 5, Bytes: 8}},
		// An invalid byte counts as a byte, not a character, and does not
		// split a word.
		{"invalid UTF-8", "a\xffb c\n", textStats{Lines: 1, Words: 2, Chars: 5, Bytes: 6}},
		{"CRLF", "a\r\nb\r\n", textStats{Lines: 2, Words: 2, Chars: 6, Bytes: 6}},
	}
	files := map[string]string{}
	for i, tt := range tests {
		files[filepath.Join("sub", strings.Repeat("x", i+1)+".txt")] = tt.content
	}
	ws := workspace(t, files)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join("sub", strings.Repeat("x", i+1)+".txt")
			res, err := run(t, context.Background(), ws, path)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			want.Path = path
			if got, ok := res.Structured.(textStats); !ok || got != want || res.IsError {
				t.Errorf("text_stats(%q) = %+v (error %v), want %+v", tt.content, res.Structured, res.IsError, want)
			}
			var fromContent textStats
			if err := json.Unmarshal([]byte(res.Content), &fromContent); err != nil || fromContent != want {
				t.Errorf("content %s does not carry the counts %+v", res.Content, want)
			}
		})
	}
}

func TestCountTextRefusals(t *testing.T) {
	ws := workspace(t, map[string]string{"a.txt": "a\n"})
	if err := os.Symlink(filepath.Join(filepath.Dir(ws), "outside.txt"), filepath.Join(ws, "link.txt")); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"missing.txt", "../outside.txt", "link.txt", filepath.Join(filepath.Dir(ws), "outside.txt")} {
		t.Run(path, func(t *testing.T) {
			res, err := run(t, context.Background(), ws, path)
			if err != nil {
				t.Fatalf("a bad path is the model's mistake, not a tool error: %v", err)
			}
			if !res.IsError || res.ErrorCode != "not_found" || strings.Contains(res.Content, "secret") {
				t.Errorf("text_stats(%s) = %+v, want a not_found error result", path, res)
			}
		})
	}
}

func TestCountTextStops(t *testing.T) {
	ws := workspace(t, map[string]string{"a.txt": "a b c\n"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := run(t, ctx, ws, "a.txt"); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled call = %v, want context.Canceled", err)
	}
	if res, err := run(t, context.Background(), filepath.Join(ws, "gone"), "a.txt"); err != nil || !res.IsError || res.ErrorCode != "not_found" {
		t.Errorf("a missing workspace = %+v, %v; want a not_found error result", res, err)
	}
}

func TestTools(t *testing.T) {
	tools := Tools()
	if len(tools) != 1 {
		t.Fatalf("Tools() = %d tools, want 1", len(tools))
	}
	s := tools[0].Spec()
	if s.Name != "text_stats" || s.Effect != sdk.EffectRead || s.Metadata.Capability != "fs.read" || len(s.Subjects) != 1 || !strings.Contains(string(s.Schema), `"required":["path"]`) {
		t.Errorf("spec = %+v", s)
	}
	// The whole description, commas included: jsonschema:"description=..."
	// would stop at the first comma.
	if !strings.Contains(string(s.Schema), `"description":"File to count, relative to the workspace"`) {
		t.Errorf("schema = %s", s.Schema)
	}
}

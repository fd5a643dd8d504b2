package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/sdk"
)

// What read_file shows the model is text, or says why it is not: bytes
// that are not text are caught wherever they are in the window, replaced
// bytes are owned up to, and a procfs size of 0 is not reported as the
// file's size.
func TestReadFileIsHonestAboutWhatItShows(t *testing.T) {
	w := newCodingWorkspace(t)
	os.WriteFile(filepath.Join(w.root, "late-nul.txt"), []byte(strings.Repeat("plain text line\n", 1024)+"\x00\x01\x02 binary\nafter\n"), 0o644)
	os.WriteFile(filepath.Join(w.root, "latin1.txt"), []byte("caf\xe9\n"), 0o644)
	for _, tc := range []struct {
		name    string
		args    map[string]any
		grants  []sdk.Grant
		want    []string
		notWant []string
	}{
		{"NUL past the first 8 KiB", map[string]any{"path": "late-nul.txt"}, nil,
			[]string{"stopped by binary_data", "line 1025 holds bytes that are not text (NUL)", "continue with offset=1026"}, []string{"\x00", "\x01"}},
		{"invalid UTF-8", map[string]any{"path": "latin1.txt"}, nil,
			[]string{"caf\uFFFD", "1 line(s) held bytes that are not valid UTF-8"}, []string{"\xe9"}},
		{"procfs text", map[string]any{"path": "/proc/self/status"}, []sdk.Grant{{Path: "/proc/self/status"}},
			[]string{"Name:", "bytes scanned (file size unknown: stat reports 0)"}, []string{"of 0 bytes"}},
		{"procfs NUL-separated", map[string]any{"path": "/proc/self/environ"}, []sdk.Grant{{Path: "/proc/self/environ"}},
			[]string{"is a binary file", "size unknown: stat reports 0"}, []string{"0 bytes)", "\x00"}},
		{"procfs from the end", map[string]any{"path": "/proc/self/status", "offset": -3}, []sdk.Grant{{Path: "/proc/self/status"}},
			[]string{"size is unknown", "positive offset"}, []string{"of 0 bytes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := w.exec(t, "read_file", tc.args, tc.grants...)
			wantOK(t, tc.name, res, tc.want...)
			for _, nw := range tc.notWant {
				if strings.Contains(res.Content, nw) {
					t.Errorf("content has %q:\n%s", nw, res.Content)
				}
			}
		})
	}
}

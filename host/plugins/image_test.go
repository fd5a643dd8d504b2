package plugins

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestSwappedBinaryAfterCheckNeverRuns swaps the plugin binary for a
// script that leaves a marker, after the checksum check and before the
// start. The verified bytes must run (the plugin describes itself), the
// script never.
func TestSwappedBinaryAfterCheckNeverRuns(t *testing.T) {
	for _, tc := range []struct {
		name string
		swap func(t *testing.T, bin string, script []byte)
	}{
		{"renamed over the path", func(t *testing.T, bin string, script []byte) {
			tmp := bin + ".new"
			if err := os.WriteFile(tmp, script, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, bin); err != nil {
				t.Fatal(err)
			}
		}},
		{"rewritten in place", func(t *testing.T, bin string, script []byte) {
			if err := os.WriteFile(bin, script, 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{"removed and replaced by a symlink", func(t *testing.T, bin string, script []byte) {
			other := filepath.Join(t.TempDir(), "evil")
			if err := os.WriteFile(other, script, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(bin); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(other, bin); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := pluginDir(t, "fixture")
			bin := filepath.Join(dir, BinaryPrefix+"fixture")
			marker := filepath.Join(t.TempDir(), "swapped-code-ran")
			script := []byte("#!/bin/sh\ntouch '" + marker + "'\nexit 1\n")
			swapped := false
			testHookImageVerified = func(c Candidate, img *image) {
				if c.Path == bin && !swapped {
					swapped = true
					tc.swap(t, bin, script)
				}
			}
			t.Cleanup(func() { testHookImageVerified = nil })

			m := newManager(t, dir, "")
			d, err := m.Describe(context.Background(), "fixture")
			if !swapped {
				t.Fatal("the hook never ran: the test checks nothing")
			}
			if err != nil {
				t.Fatalf("the verified binary did not start: %v", err)
			}
			if d.GetName() != "fixture" {
				t.Fatalf("described as %q", d.GetName())
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the swapped binary ran")
			}
			if res, _, err := call(t, m, "fixture", "echo", `{"text":"still verified"}`); err != nil || res.GetContent() != "still verified" {
				t.Fatalf("call on the verified image: %v, %v", res, err)
			}
		})
	}
}

// TestVerifiedImageIsSealed: nobody holding the image can change it
// before it runs.
func TestVerifiedImageIsSealed(t *testing.T) {
	dir := pluginDir(t, "fixture")
	cands, err := Discover([]Dir{{Path: dir, Origin: OriginBuiltin}})
	if err != nil || len(cands) != 1 {
		t.Fatalf("discover: %v %v", cands, err)
	}
	img, err := verifiedImage(cands[0])
	if err != nil {
		t.Fatal(err)
	}
	defer img.close()
	if _, err := img.f.WriteAt([]byte("x"), 0); err == nil {
		t.Fatal("the verified image took a write")
	}
	if err := img.f.Truncate(1); err == nil {
		t.Fatal("the verified image could be shrunk")
	}
	w, err := os.OpenFile(img.execPath(), os.O_WRONLY, 0)
	if err == nil {
		_, err = w.Write([]byte("x"))
		w.Close()
	}
	if err == nil {
		t.Fatal("the verified image took a write through /proc/self/fd")
	}
}

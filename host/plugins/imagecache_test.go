package plugins

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// recordedFixture is a fixture plugin directory whose binary's identity
// has been recorded as verified (its ctime made old enough first), and
// the records directory.
func recordedFixture(t *testing.T) (dir, bin, records string) {
	t.Helper()
	dir, records = pluginDir(t, "fixture"), t.TempDir()
	bin = filepath.Join(dir, BinaryPrefix+"fixture")
	time.Sleep(minRecordAge + 100*time.Millisecond) // a fresh ctime is never recorded
	if path := startPath(t, dir, records); path != "copy" {
		t.Fatalf("the first start took the %s path; want a full check", path)
	}
	if n := recordCount(t, records); n != 1 {
		t.Fatalf("%d records after a full check; want 1", n)
	}
	return dir, bin, records
}

func recordCount(t *testing.T, dir string) int {
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") {
			n++
		}
	}
	return n
}

// startPath starts the fixture on a fresh manager and says how its image
// was made: "direct" (the recorded file itself) or "copy" (hashed into a
// sealed memfd). A start that fails fails the test.
func startPath(t *testing.T, dir, records string) string {
	t.Helper()
	path := ""
	testHookImageVerified = func(c Candidate, img *image) {
		if path = "copy"; img.direct != nil {
			path = "direct"
		}
	}
	defer func() { testHookImageVerified = nil }()
	m, err := New(Config{Dirs: []Dir{{Path: dir, Origin: OriginBuiltin}}, VerifiedDir: records, Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if res, _, err := call(t, m, "fixture", "echo", `{"text":"ok"}`); err != nil || res.GetContent() != "ok" {
		t.Fatalf("call: %v %v", res, err)
	}
	return path
}

// startError starts the fixture on a fresh manager and returns the call's
// error (nil when it ran).
func startErr(t *testing.T, dir, records string) error {
	t.Helper()
	m, err := New(Config{Dirs: []Dir{{Path: dir, Origin: OriginBuiltin}}, VerifiedDir: records, Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	_, _, err = call(t, m, "fixture", "echo", `{"text":"ok"}`)
	return err
}

func TestVerifiedRecordSparesTheCopyAndHash(t *testing.T) {
	dir, _, records := recordedFixture(t)
	if path := startPath(t, dir, records); path != "direct" {
		t.Fatalf("the second start took the %s path; want the recorded file itself", path)
	}
}

func TestFreshBinaryIsNotRecorded(t *testing.T) {
	dir, records := pluginDir(t, "fixture"), t.TempDir()
	startPath(t, dir, records)
	if n := recordCount(t, records); n != 0 {
		t.Fatalf("a binary whose ctime is this tick's was recorded (%d records)", n)
	}
}

// tampered is the fixture binary with its last byte changed: same size.
func tampered(t *testing.T, bin string) []byte {
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-1] ^= 0xff
	return b
}

func restoreMtime(t *testing.T, path string, st os.FileInfo) {
	if err := os.Chtimes(path, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
}

// TestVerifiedRecordAttacks changes a recorded binary in the ways that
// keep what a cheap check would look at (size, mtime, path); each must be
// refused by the full check, never run from the record.
func TestVerifiedRecordAttacks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		attack func(t *testing.T, bin string)
	}{
		{"rewritten in place, same size and mtime", func(t *testing.T, bin string) {
			st, _ := os.Stat(bin)
			f, err := os.OpenFile(bin, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteAt(tampered(t, bin)[st.Size()-1:], st.Size()-1); err != nil {
				t.Fatal(err)
			}
			f.Close()
			restoreMtime(t, bin, st)
		}},
		{"swapped by rename, same size and mtime", func(t *testing.T, bin string) {
			st, _ := os.Stat(bin)
			tmp := bin + ".new"
			if err := os.WriteFile(tmp, tampered(t, bin), 0o755); err != nil {
				t.Fatal(err)
			}
			restoreMtime(t, tmp, st)
			if err := os.Rename(tmp, bin); err != nil {
				t.Fatal(err)
			}
		}},
		{"replaced by a symlink to a tampered copy", func(t *testing.T, bin string) {
			st, _ := os.Stat(bin)
			other := filepath.Join(t.TempDir(), BinaryPrefix+"fixture")
			if err := os.WriteFile(other, tampered(t, bin), 0o755); err != nil {
				t.Fatal(err)
			}
			restoreMtime(t, other, st)
			if err := os.Remove(bin); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(other, bin); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, bin, records := recordedFixture(t)
			tc.attack(t, bin)
			err := startErr(t, dir, records)
			if err == nil || !strings.Contains(err.Error(), "refused and was not started") {
				t.Fatalf("a tampered binary with a recorded path, size and mtime: %v", err)
			}
		})
	}
}

// TestOpenWriterDefeatsTheRecord: a process holding the binary open for
// writing (it could change bytes without a new ctime through a shared
// mapping) denies the read lease, so the start checks in full.
func TestOpenWriterDefeatsTheRecord(t *testing.T) {
	dir, bin, records := recordedFixture(t)
	w, err := os.OpenFile(bin, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if path := startPath(t, dir, records); path != "copy" {
		t.Fatalf("with a writer holding the binary open the start took the %s path", path)
	}
}

// TestWriteDuringDirectStartNeverRuns: a writer that opens the recorded
// binary between the check and the exec waits on the lease; by the time
// it may go on, the binary is running and the kernel refuses the write.
// The tampered bytes never run.
func TestWriteDuringDirectStartNeverRuns(t *testing.T) {
	dir, bin, records := recordedFixture(t)
	writeErr := make(chan error, 1)
	started := false
	testHookImageVerified = func(c Candidate, img *image) {
		if img.direct == nil || started {
			return
		}
		started = true
		go func() {
			f, err := os.OpenFile(bin, os.O_WRONLY, 0)
			if err == nil {
				_, err = f.WriteAt([]byte("tampered"), 0)
				f.Close()
			}
			writeErr <- err
		}()
		time.Sleep(200 * time.Millisecond) // the writer is waiting on the lease
	}
	defer func() { testHookImageVerified = nil }()
	m, err := New(Config{Dirs: []Dir{{Path: dir, Origin: OriginBuiltin}}, VerifiedDir: records, Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	res, _, callErr := call(t, m, "fixture", "echo", `{"text":"verified"}`)
	if !started {
		t.Fatal("the start did not take the recorded path: the test checks nothing")
	}
	werr := <-writeErr
	switch {
	case callErr == nil && res.GetContent() == "verified":
		if !errors.Is(werr, syscall.ETXTBSY) {
			t.Fatalf("the verified image runs, but the writer got %v; want ETXTBSY", werr)
		}
	case callErr != nil && strings.Contains(callErr.Error(), "text file busy"):
		// The writer took write access before the exec: the exec fails
		// (ETXTBSY) and nothing runs. Fail closed is fine.
		t.Logf("start failed closed: %v (writer: %v)", callErr, werr)
	default:
		t.Fatalf("the start neither ran the verified image nor failed closed: %v %v (writer: %v)", res, callErr, werr)
	}
}

// TestRecordNeedsTheSameSum: a record vouches for one expected sum; a
// changed .sha256 beside the binary is a miss.
func TestRecordNeedsTheSameSum(t *testing.T) {
	dir, bin, records := recordedFixture(t)
	if err := os.WriteFile(bin+".sha256", []byte(strings.Repeat("0", 64)+"  "+BinaryPrefix+"fixture\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := startErr(t, dir, records)
	if err == nil || !strings.Contains(err.Error(), "refused and was not started") {
		t.Fatalf("a binary whose recorded sum changed: %v", err)
	}
}

// TestRecordIsReplacedNotAccumulated: a binary rewritten with the same
// bytes is checked in full once more and its record replaced; the
// directory keeps one record per path.
func TestRecordIsReplacedNotAccumulated(t *testing.T) {
	dir, bin, records := recordedFixture(t)
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	time.Sleep(minRecordAge + 100*time.Millisecond)
	if path := startPath(t, dir, records); path != "copy" {
		t.Fatalf("a rewritten binary took the %s path", path)
	}
	if path := startPath(t, dir, records); path != "direct" {
		t.Fatalf("the rewritten binary's new record was not used (%s)", path)
	}
	if n := recordCount(t, records); n != 1 {
		t.Fatalf("%d records for one path", n)
	}
}

// TestSwapDuringDirectStartNeverRuns: the recorded binary swapped by a
// rename or replaced by a symlink between the check and the exec. The
// start executes the descriptor it checked, never the path, so the
// swapped-in script never runs; the old inode's ctime moves when its last
// link goes, so the start then fails closed ("changed while it was
// starting") rather than run a binary no longer on disk.
func TestSwapDuringDirectStartNeverRuns(t *testing.T) {
	for _, tc := range []struct {
		name string
		swap func(t *testing.T, bin string, script []byte)
	}{
		{"renamed over the path", func(t *testing.T, bin string, script []byte) {
			if err := os.WriteFile(bin+".new", script, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(bin+".new", bin); err != nil {
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
			dir, bin, records := recordedFixture(t)
			marker := filepath.Join(t.TempDir(), "swapped-code-ran")
			script := []byte("#!/bin/sh\ntouch '" + marker + "'\nexit 1\n")
			swapped := false
			testHookImageVerified = func(c Candidate, img *image) {
				if img.direct != nil && !swapped {
					swapped = true
					tc.swap(t, bin, script)
				}
			}
			defer func() { testHookImageVerified = nil }()
			m, err := New(Config{Dirs: []Dir{{Path: dir, Origin: OriginBuiltin}}, VerifiedDir: records, Home: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			res, _, err := call(t, m, "fixture", "echo", `{"text":"verified"}`)
			if !swapped {
				t.Fatal("the start did not take the recorded path: the test checks nothing")
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the swapped-in script ran")
			}
			if err != nil && !strings.Contains(err.Error(), "changed while it was starting") {
				t.Fatalf("neither the verified binary ran nor the start failed closed: %v", err)
			}
			if err == nil && res.GetContent() != "verified" {
				t.Fatalf("result %v", res)
			}
		})
	}
}

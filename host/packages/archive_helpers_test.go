package packages

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"demiurge.dev/host/core"
)

// tinyModule is the module path of the small real Go program the archives
// of these tests carry as their plugin binary.
const tinyModule = "example.test/tiny"

var (
	tinyOnce sync.Once
	tinyBin  []byte
	tinyErr  error
)

// tinyBinary builds (once) a real Go program: install reads its build
// information, so it must be one.
func tinyBinary(t *testing.T) []byte {
	t.Helper()
	tinyOnce.Do(func() {
		dir, err := os.MkdirTemp("", "packages-tiny-")
		if err != nil {
			tinyErr = err
			return
		}
		defer os.RemoveAll(dir)
		must := func(err error) {
			if err != nil && tinyErr == nil {
				tinyErr = err
			}
		}
		must(os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module "+tinyModule+"\n\ngo 1.26\n"), 0o644))
		must(os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644))
		cmd := exec.Command("go", "build", "-o", "tiny", ".")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			tinyErr = &buildError{string(out)}
			return
		}
		tinyBin, tinyErr = os.ReadFile(filepath.Join(dir, "tiny"))
	})
	if tinyErr != nil {
		t.Fatal(tinyErr)
	}
	return tinyBin
}

type buildError struct{ out string }

func (e *buildError) Error() string { return "build the tiny test program: " + e.out }

// entry is one member of a test archive.
type entry struct {
	name     string
	body     []byte
	typ      byte // tar.TypeReg when 0
	linkname string
}

// writeArchive writes a .tar.gz with the entries, in order, and returns
// its sha256.
func writeArchive(t testing.TB, path string, entries ...entry) string {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	gz, _ := gzip.NewWriterLevel(f, gzip.BestSpeed)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		hdr := &tar.Header{Name: e.name, Typeflag: typ, Mode: 0o755, Size: int64(len(e.body)), Linkname: e.linkname}
		if typ != tar.TypeReg {
			hdr.Size = 0
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if typ == tar.TypeReg {
			if _, err := tw.Write(e.body); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// manifestFor is a valid manifest of package name in slot.
func manifestFor(name, slot string) string {
	m := strings.Replace(goodManifest, `"name":"web_search_test"`, `"name":"`+name+`"`, 1)
	m = strings.Replace(m, `"slot":"web_search"`, `"slot":"`+slot+`"`, 1)
	return strings.Replace(m, `"module":"demiurge.dev/host"`, `"module":"`+tinyModule+`"`, 1)
}

// packageArchive writes a well-formed archive of package name into dir as
// a source would hold it (with its .sha256 recorded), and returns its path
// and sha256.
func packageArchive(t *testing.T, dir, name, slot string) (string, string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name+ArchiveSuffix)
	sum := writeArchive(t, path,
		entry{name: ManifestName, body: []byte(manifestFor(name, slot))},
		entry{name: "demiurge-toolset-" + name, body: tinyBinary(t)})
	if err := os.WriteFile(path+".sha256", []byte(sum+"  "+filepath.Base(path)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, sum
}

// coreDir writes an agent core; slots adds slots.tools: agent/tools.
func coreDir(t *testing.T, slots bool) *core.Core {
	t.Helper()
	dir := t.TempDir()
	yaml := "name: test\ntoolsets: [coding]\ncapabilities: [fs.read, network.fetch]\n"
	if slots {
		yaml += "slots: {tools: agent/tools}\n"
		if err := os.MkdirAll(filepath.Join(dir, "agent", "tools"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, core.FileName), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := core.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

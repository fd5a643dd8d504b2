package packages

import (
	"archive/tar"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzUnpack feeds arbitrary bytes to the archive reader as an archive
// from an untrusted source: it must fail cleanly or yield a valid manifest
// and a binary inside the staging directory, never anything else.
func FuzzUnpack(f *testing.F) {
	dir := f.TempDir()
	seed := func(entries ...entry) {
		p := filepath.Join(dir, "seed.tar.gz")
		writeArchive(f, p, entries...)
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	m := []byte(manifestFor("fz", "web_search"))
	seed(entry{name: ManifestName, body: m}, entry{name: "demiurge-toolset-fz", body: []byte("\x7fELF not really")})
	seed(entry{name: ManifestName, body: m}, entry{name: "demiurge-toolset-fz", typ: tar.TypeSymlink, linkname: "/etc/passwd"})
	seed(entry{name: "../" + ManifestName, body: m})
	seed(entry{name: ManifestName, body: []byte(strings.Replace(string(m), `"protocol":1`, `"protocol":2`, 1))})
	f.Add([]byte("not gzip"))
	f.Fuzz(func(t *testing.T, b []byte) {
		work := t.TempDir()
		archive := filepath.Join(work, "in.tar.gz")
		if err := os.WriteFile(archive, b, 0o600); err != nil {
			t.Fatal(err)
		}
		stage := filepath.Join(work, "stage")
		if err := os.Mkdir(stage, 0o700); err != nil {
			t.Fatal(err)
		}
		u, err := unpack(archive, stage)
		if err != nil {
			return
		}
		if u.manifest.checkProtocol() != nil || filepath.Dir(u.binary) != stage {
			t.Fatalf("accepted %+v", u)
		}
		entries, _ := os.ReadDir(stage)
		if len(entries) != 1 {
			t.Fatalf("staging holds %d entries", len(entries))
		}
	})
}

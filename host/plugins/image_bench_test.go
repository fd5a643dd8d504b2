package plugins

import (
	"path/filepath"
	"testing"
)

// BenchmarkVerifiedImage is the launch's check with the sealed copy (what
// runs now) against the bare hash of the file (what go-plugin's
// SecureConfig did before), on the coding plugin binary.
func BenchmarkVerifiedImage(b *testing.B) {
	dir := pluginDir(b, "coding")
	cands, err := Discover([]Dir{{Path: dir, Origin: OriginBuiltin}})
	if err != nil || len(cands) != 1 {
		b.Fatalf("discover: %v %v", cands, err)
	}
	b.Run("memfd-copy+hash", func(b *testing.B) {
		for b.Loop() {
			img, err := verifiedImage(cands[0])
			if err != nil {
				b.Fatal(err)
			}
			img.close()
		}
	})
	b.Run("hash-only", func(b *testing.B) {
		for b.Loop() {
			if _, err := fileSHA256(filepath.Join(dir, BinaryPrefix+"coding")); err != nil {
				b.Fatal(err)
			}
		}
	})
}

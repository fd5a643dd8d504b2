package catalogsnap

import (
	"testing"

	"demiurge.dev/catalog"
)

// BenchmarkRecordUnchanged is what the full host pays per resolved catalog
// for the snapshot when nothing changed (every turn of a session): the
// key's stats, encoding, and a comparison with the file, no write.
// BenchmarkLoad is the launcher's read and key check.
func BenchmarkRecordUnchanged(b *testing.B) {
	f := newFixture(b)
	c, cands := f.inputs()
	src := sourcesFor(c, cands)
	cat, err := catalog.Resolve(src, c.Metadata)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := record(f.state, f.host, c, cands, src, nil, cat.Fingerprint()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoad(b *testing.B) {
	f := newFixture(b)
	f.record()
	k := f.key()
	for b.Loop() {
		if _, ok := Load(f.state, k); !ok {
			b.Fatal("miss")
		}
	}
}

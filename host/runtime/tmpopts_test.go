package runtime

import (
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

func benchOpts(b *testing.B, o *bolt.Options) {
	db, err := bolt.Open(filepath.Join(b.TempDir(), "bare.db"), 0o600, o)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.Update(func(tx *bolt.Tx) error {
		for _, n := range buckets {
			tx.CreateBucket([]byte(n))
		}
		return nil
	})
	value, _ := encodeEvent(Event{Time: time.Now(), Kind: benchEvent.Kind, Session: benchEvent.Session,
		Tool: benchEvent.Tool, CallID: benchEvent.CallID, Data: benchEvent.Data})
	b.ResetTimer()
	for b.Loop() {
		err := db.Update(func(tx *bolt.Tx) error {
			bk := tx.Bucket([]byte(BucketEvents))
			seq, _ := bk.NextSequence()
			return bk.Put(seqKey(seq), value)
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
func BenchmarkOptDefault(b *testing.B) { benchOpts(b, nil) }
func BenchmarkOptNoFL(b *testing.B) {
	benchOpts(b, &bolt.Options{NoFreelistSync: true, FreelistType: bolt.FreelistMapType})
}
func BenchmarkOptNoFLArray(b *testing.B) {
	benchOpts(b, &bolt.Options{NoFreelistSync: true})
}
func BenchmarkOptMapOnly(b *testing.B) {
	benchOpts(b, &bolt.Options{FreelistType: bolt.FreelistMapType})
}

package runtime

import (
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// scanRecords decodes every JSON record of a bucket and returns those keep
// accepts, in key order. what names a record in a decoding error.
func scanRecords[T any](s *Store, bucket, what string, keep func(*T) bool) ([]T, error) {
	var out []T
	err := s.view(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte(bucket)).ForEach(func(k, v []byte) error {
			var rec T
			if err := json.Unmarshal(v, &rec); err != nil {
				return fmt.Errorf("decode %s %s: %w", what, k, err)
			}
			if keep(&rec) {
				out = append(out, rec)
			}
			return nil
		})
	})
	return out, err
}

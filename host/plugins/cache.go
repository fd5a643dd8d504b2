package plugins

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"google.golang.org/protobuf/encoding/protojson"

	"demiurge.dev/shared/toolsetv1"
)

// describeCache keeps each plugin's Describe answer keyed by the sha256 of
// its binary, so that listing tools needs no plugin process while nothing
// changed. The entry also records the binary's size and mtime: a binary
// whose stat no longer matches is a miss, and the launch-time checksum
// check catches anything stat cannot.
type describeCache struct{ dir string }

type cacheEntry struct {
	SHA256   string          `json:"sha256"`
	Size     int64           `json:"size"`
	ModNanos int64           `json:"mod_nanos"`
	Protocol int             `json:"protocol"`
	Describe json.RawMessage `json:"describe"`
}

func (c describeCache) path(sum string) string { return filepath.Join(c.dir, sum+".json") }

// described is a plugin's Describe answer with the protocol it spoke.
type described struct {
	*toolsetv1.DescribeResponse
	Protocol int
}

func (c describeCache) load(sum, binary string) (described, bool) {
	if c.dir == "" || sum == "" {
		return described{}, false
	}
	raw, err := os.ReadFile(c.path(sum))
	if err != nil {
		return described{}, false
	}
	var e cacheEntry
	if json.Unmarshal(raw, &e) != nil || e.SHA256 != sum {
		return described{}, false
	}
	st, err := os.Stat(binary)
	if err != nil || st.Size() != e.Size || st.ModTime().UnixNano() != e.ModNanos {
		return described{}, false
	}
	var d toolsetv1.DescribeResponse
	if protojson.Unmarshal(e.Describe, &d) != nil {
		return described{}, false
	}
	return described{DescribeResponse: &d, Protocol: e.Protocol}, true
}

func (c describeCache) store(sum, binary string, d described) error {
	if c.dir == "" {
		return nil
	}
	st, err := os.Stat(binary)
	if err != nil {
		return err
	}
	desc, err := protojson.Marshal(d.DescribeResponse)
	if err != nil {
		return err
	}
	raw, err := json.Marshal(cacheEntry{SHA256: sum, Size: st.Size(), ModNanos: st.ModTime().UnixNano(), Protocol: d.Protocol, Describe: desc})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return fmt.Errorf("describe cache: %w", err)
	}
	tmp, err := os.CreateTemp(c.dir, ".describe-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(raw); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), c.path(sum))
}

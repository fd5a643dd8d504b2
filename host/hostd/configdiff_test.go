package hostd

import (
	"strings"
	"testing"
)

// The live revision is compared only when both sides know it, and named
// as what it is (it is no flag).
func TestConfigDiffCoreRevision(t *testing.T) {
	host := "core=\ncore-id=\ncore-revision=aaa"
	if d := configDiff(host, "core=\ncore-id=\ncore-revision=aaa"); d != "" {
		t.Errorf("same revision: diff %q", d)
	}
	d := configDiff(host, "core=\ncore-id=\ncore-revision=bbb")
	if !strings.Contains(d, `the core repository's live revision: host "aaa", this command "bbb"`) || strings.Contains(d, "--core-revision") {
		t.Errorf("another revision: diff %q", d)
	}
	for _, fe := range []string{"core=\ncore-id=\ncore-revision=", "core=\ncore-id="} {
		if d := configDiff(host, fe); d != "" {
			t.Errorf("front end that does not know live (%q): diff %q", fe, d)
		}
	}
	if d := configDiff(host, "core=\ncore-id=reviewer\ncore-revision=aaa"); !strings.Contains(d, `--core-id: host "", this command "reviewer"`) {
		t.Errorf("another core id: diff %q", d)
	}
}

package shellguard

import (
	"os/exec"
	"regexp"
	"testing"
)

// TestPkillSignalKnowsEverySignal: every signal bash's `kill -l` names,
// with and without SIG, and its number, is read as pkill's leading
// -SIGNAL (else -IO would be read as -I and -O taking the next word, and
// -RTMIN+9's letters as options); single letters and lowercase words are
// options.
func TestPkillSignalKnowsEverySignal(t *testing.T) {
	out, err := exec.Command("bash", "-c", "kill -l").Output()
	if err != nil {
		t.Fatalf("bash -c 'kill -l': %v", err)
	}
	names := regexp.MustCompile(`(\d+)\) SIG([A-Z0-9+-]+)`).FindAllStringSubmatch(string(out), -1)
	if len(names) < 30 {
		t.Fatalf("kill -l named %d signals: %q", len(names), out)
	}
	for _, m := range names {
		for _, s := range []string{m[1], m[2], "SIG" + m[2]} {
			if !pkillSignal(s) {
				t.Errorf("pkillSignal(%q) = false; kill -l names it", s)
			}
		}
	}
	for _, s := range []string{"U", "P", "v", "f", "x", "SIG", "kill", "Hup", "IO.", "RT MIN", "a1"} {
		if pkillSignal(s) {
			t.Errorf("pkillSignal(%q) = true; not a signal", s)
		}
	}
}

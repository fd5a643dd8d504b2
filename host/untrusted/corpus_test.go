package untrusted

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

type corpusLine struct {
	Src  string `json:"src"`
	Text string `json:"text"`
	// Hidden is appended as Unicode tag characters (ASCII smuggling):
	// each ASCII byte b becomes U+E0000+b.
	Hidden string `json:"hidden"`
}

func loadCorpus(t *testing.T, name string) []string {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		var l corpusLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s:%d: %v", name, n, err)
		}
		text := l.Text
		if l.Hidden != "" {
			var b strings.Builder
			for _, r := range l.Hidden {
				b.WriteRune(0xE0000 + r)
			}
			text += b.String()
		}
		out = append(out, text)
	}
	return out
}

// TestCorpusFigures screens the injection corpus (assembled from public
// write-ups, each line names its source) and the benign look-alikes, and
// reports detection and false-positive rates. The bars are what this
// screening was tuned to; a change that loses detections fails here.
func TestCorpusFigures(t *testing.T) {
	inj, ben := loadCorpus(t, "injections.jsonl"), loadCorpus(t, "benign.jsonl")
	if len(inj) < 60 || len(ben) < 60 {
		t.Fatalf("corpus too small: %d injections, %d benign (need 60 each)", len(inj), len(ben))
	}
	detected, falsePos := 0, 0
	for i, s := range inj {
		if v := Screen(s); v.Flagged {
			detected++
		} else {
			t.Logf("missed injection %d: %q", i+1, s)
		}
	}
	for i, s := range ben {
		if v := Screen(s); v.Flagged {
			falsePos++
			t.Logf("false positive %d: %q %v", i+1, s, v.Kinds())
		}
	}
	dr := float64(detected) / float64(len(inj))
	fp := float64(falsePos) / float64(len(ben))
	t.Logf("detection %d/%d = %.1f%%; false positives %d/%d = %.1f%%", detected, len(inj), 100*dr, falsePos, len(ben), 100*fp)
	if dr < 0.95 {
		t.Errorf("detection %.1f%% is below 95%%", 100*dr)
	}
	if fp > 0.10 {
		t.Errorf("false positives %.1f%% are above 10%%", 100*fp)
	}
}

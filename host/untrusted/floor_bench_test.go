package untrusted

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"demiurge.dev/host/untrusted/oracle"
)

// BenchmarkScreenFloor1MiB puts Screen's cost on a 1 MiB page beside
// the least any screener giving the same verdicts must do on it, all
// alternated in one run on one locked thread and timed in that thread's
// CPU time (so other processes' load counts little):
//
//   - words: only splitting the text into words (letter runs) and
//     counting them; the phrase rules' windows are counted in words;
//   - vocab: that, plus finding which words are vocabulary words (the
//     filter and the table probe) without running any rule: every one
//     of them can complete a rule, so each must be looked at;
//   - wrap: the envelope alone (a clean verdict): its two lines and the
//     boundary search, the text not copied (Envelope);
//   - wrapcopy: the envelope as it was before (wrapBefore): the same and
//     one copy of the text;
//   - screen: Screen itself (by masks with vector code, else the scan);
//   - screenwrap: what the host does with a large result: ScreenFor
//     (Screen finding the boundary in its pass) and EnvelopeAt, against
//     screen + wrap, the two passes as before;
//   - scan: the byte scan (ScreenScan), Screen without vector code;
//   - old: the screener before the word batches (package oracle).
//
// The ratios are against words; the 5% goal of issue 30 is to be read
// against the call's whole host time (BenchmarkScreening1MiBResult's
// plain-cpu-µs in host/dispatch).
func BenchmarkScreenFloor1MiB(b *testing.B) { screenFloor(b, benchPage(1<<20)) }

// BenchmarkScreenFloor4KiB is the same for a 4 KiB result.
func BenchmarkScreenFloor4KiB(b *testing.B) { screenFloor(b, benchPage(4<<10)) }

// BenchmarkScreenFloorFixturePage1MiB is the same on the 1 MiB text the
// fixture's page tool returns (sdk/testtoolsets/fixture pageText), the
// result host/dispatch's BenchmarkScreening1MiBResult screens: lines of
// web text with vocabulary words and no anchor, where benchPage has an
// anchor every dozen words.
func BenchmarkScreenFloorFixturePage1MiB(b *testing.B) { screenFloor(b, fixturePage(1<<20)) }

// fixturePage is the fixture's pageText.
func fixturePage(n int) string {
	line := "The previous notes explain how AI models are evaluated; run the command and follow the guide; see <b>.\n"
	line = line[:99] + "\n"
	return strings.Repeat(line, n/len(line)+1)[:n]
}

func screenFloor(b *testing.B, s string) {
	bd := NewBoundary()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	sides := []struct {
		name string
		run  func() int
		cpu  []time.Duration
	}{
		{name: "words", run: func() int { return countWords(s) }},
		{name: "vocab", run: func() int { return vocabWords(s) }},
		{name: "wrap", run: func() int { h, t, _ := Envelope(bd, "mcp:docs", s, Verdict{}); return len(h) + len(t) }},
		{name: "wrapcopy", run: func() int { w, _ := wrapBefore(bd, "mcp:docs", s, Verdict{}); return len(w) }},
		{name: "screen", run: func() int { return len(Screen(s).Signals) }},
		{name: "screenwrap", run: func() int {
			v, at := ScreenFor(s, bd)
			h, t, _ := EnvelopeAt(bd, "mcp:docs", s, v, at)
			return len(h) + len(t)
		}},
		{name: "scan", run: func() int { return len(ScreenScan(s).Signals) }},
		{name: "old", run: func() int { return len(oracle.Screen(s).Signals) }},
	}
	sink := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := range sides {
			sd := &sides[(i+k)%len(sides)]
			c0 := threadCPU()
			sink += sd.run()
			sd.cpu = append(sd.cpu, threadCPU()-c0)
		}
	}
	b.StopTimer()
	if sink < 0 {
		b.Fatal(sink)
	}
	med := func(d []time.Duration) float64 { return float64(medianOf(d).Nanoseconds()) }
	words := med(sides[0].cpu)
	meds := map[string]float64{}
	for k := range sides {
		m := med(sides[k].cpu)
		meds[sides[k].name] = m
		b.ReportMetric(m/1e3, sides[k].name+"-cpu-µs")
		if k > 0 {
			b.ReportMetric(m/words, sides[k].name+"/words")
		}
	}
	b.ReportMetric(meds["screen"]/meds["old"], "screen/old")
	b.ReportMetric(meds["screen"]/meds["scan"], "screen/scan")
}

// threadCPU is the calling thread's CPU time
// (CLOCK_THREAD_CPUTIME_ID; rusage counts only whole ticks).
func threadCPU() time.Duration {
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 3, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}

// countWords counts the letter runs of s, as Screen splits them.
func countWords(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if class[s[i]] != clsLetter {
			i++
			continue
		}
		j := i + 1
		for j < len(s) && class[s[j]] == clsLetter {
			j++
		}
		n++
		i = j
	}
	return n
}

// vocabWords counts the vocabulary words of s, found as Screen finds
// them (filter, then table), running no rule.
func vocabWords(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if class[s[i]] != clsLetter {
			i++
			continue
		}
		j := i + 1
		for j < len(s) && class[s[j]] == clsLetter {
			j++
		}
		if j-i > 1 && j-i <= maxWord && vocabFilter.has(wordKey(s, i, j)) && lookup(s, i, j) != 0 {
			n++
		}
		i = j
	}
	return n
}

// BenchmarkScreenForOverKernel1MiB alternates, on one locked thread,
// ScreenFor and the mask kernel alone (vectorMasks a chunk at a time, as
// screenSparse calls it) on the same 1 MiB text, in thread CPU time:
// outside-cpu-µs (the median of each round's difference) is what the
// screener costs besides its kernel: the specials, the words, the
// phrase rules, the chunk's bookkeeping and its allocations. On the
// fixture's page (no special byte, no anchor) it is about nothing; on
// benchPage (an anchor every dozen words) most of the screener. Without
// vector code the kernel does nothing and ScreenFor is the byte scan.
func BenchmarkScreenForOverKernel1MiB(b *testing.B) {
	for _, page := range []struct {
		name string
		s    string
	}{{"fixture", fixturePage(1 << 20)}, {"benchPage", benchPage(1 << 20)}, {"prose", prosePage(b, 1<<20)}, {"npm", npmPage(1 << 20)}, {"guides", guidesPage(b, 1<<20)}} {
		b.Run(page.name, func(b *testing.B) {
			if page.s == "" {
				b.Skip("no " + npmDocs)
			}
			screenForOverKernel(b, page.s)
		})
	}
}

// npmDocs is where npm's own Markdown is on a machine with Node.js.
const npmDocs = "/usr/lib/node_modules/npm"

// npmPage is n bytes of the Markdown READMEs and docs of npm's
// packages (the .md files over 4 KiB under npmDocs, in lexical order,
// repeated), read at bench time; "" where there are none. Markdown as
// a page of package documentation has it: a paragraph break every ~130
// bytes (a markup byte for "\n\nHuman:"), JSON and HTML in code
// blocks, and a candidate of the anchor filter every ~20 words ("node",
// "files", "null"), a quarter of them anchors.
func npmPage(n int) string {
	var b strings.Builder
	filepath.WalkDir(npmDocs, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() <= 4<<10 {
			return nil
		}
		data, err := os.ReadFile(path)
		if err == nil {
			b.Write(data)
		}
		return nil
	})
	if b.Len() == 0 {
		return ""
	}
	return strings.Repeat(b.String(), n/b.Len()+1)[:n]
}

// prosePage is n bytes of real prose, this repository's
// docs/architecture.md repeated: an anchor every hundred words or so
// ("you", "must", "new", "system", "run", "prompt"), as a real page
// might have, between the fixture's page (none) and benchPage (one
// every dozen words). Read at bench time, so it follows the file.
func prosePage(b testing.TB, n int) string {
	data, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		b.Fatal(err)
	}
	return strings.Repeat(string(data), n/len(data)+1)[:n]
}

// guidesPage is n bytes of the fixture's prose page (the repository's
// user guides, sdk/testtoolsets/fixture/prose.txt) repeated: the text of
// the host's BenchmarkScreening1MiBPairProse, Markdown with a paragraph
// break, a quote or a bracket in nearly every block. Read at bench time.
func guidesPage(b testing.TB, n int) string {
	data, err := os.ReadFile("../../sdk/testtoolsets/fixture/prose.txt")
	if err != nil {
		b.Fatal(err)
	}
	return strings.Repeat(string(data), n/len(data)+1)[:n]
}

func screenForOverKernel(b *testing.B, s string) {
	bd := NewBoundary()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var letter, special, anchor [chunkBlocks]uint64
	var kernel, screen, outside []time.Duration
	sink := 0
	for b.Loop() {
		c0 := threadCPU()
		for b0, nb := 0, (len(s)+63)/64; b0 < nb; b0 += chunkBlocks {
			n := min(chunkBlocks, nb-b0)
			sum := chunkSum{first: bd[0]}
			sink += vectorMasks(s, b0, letter[:n], special[:n], anchor[:n], &sum) + sum.words
		}
		c1 := threadCPU()
		v, at := ScreenFor(s, bd)
		c2 := threadCPU()
		sink += len(v.Signals) + at
		kernel, screen, outside = append(kernel, c1-c0), append(screen, c2-c1), append(outside, c2-c1-(c1-c0))
	}
	if sink == 0 {
		b.Fatal("no words")
	}
	med := func(d []time.Duration) float64 { return float64(medianOf(d).Nanoseconds()) / 1e3 }
	b.ReportMetric(med(kernel), "kernel-cpu-µs")
	b.ReportMetric(med(screen), "screenfor-cpu-µs")
	b.ReportMetric(med(outside), "outside-cpu-µs")
}

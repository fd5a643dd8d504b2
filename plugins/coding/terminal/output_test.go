package terminal

import (
	"encoding/hex"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"demiurge.dev/shared/redact"
)

func TestTailTable(t *testing.T) {
	big := strings.Repeat("a", TailChars+5)
	wide := strings.Repeat("密", TailChars+3)
	cases := []struct {
		name      string
		writes    []string
		tail      string
		chars     int64
		truncated bool
	}{
		{"empty", nil, "", 0, false},
		{"short", []string{"hello\n"}, "hello\n", 6, false},
		{"split rune", []string{"a\xe5", "\xaf", "\x86b"}, "a密b", 3, false},
		{"invalid bytes count one each", []string{"\xff\xfe", "x"}, "\uFFFDx", 3, false},
		{"incomplete at end", []string{"ok\xe5\xaf"}, "ok\uFFFD", 4, false},
		{"exactly the limit", []string{big[:TailChars]}, big[:TailChars], TailChars, false},
		{"over the limit", []string{big}, big[:TailChars], TailChars + 5, true},
		{"over the limit in pieces", []string{big[:7000], big[7000:]}, big[:TailChars], TailChars + 5, true},
		{"wide characters", []string{wide}, strings.Repeat("密", TailChars), TailChars + 3, true},
		{"wide, in odd pieces", splitEvery(wide, 7), strings.Repeat("密", TailChars), TailChars + 3, true},
		{"ring wraps many times", splitEvery(strings.Repeat("0123456789", 20000), 4999), strings.Repeat("0123456789", 1200), 200000, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tl := newTail()
			total := 0
			for _, w := range tc.writes {
				_, _ = tl.Write([]byte(w))
				total += len(w)
			}
			tl.finish()
			got, truncated := tl.text()
			if got != tc.tail || tl.chars != tc.chars || truncated != tc.truncated || tl.bytes != int64(total) {
				t.Fatalf("tail %d chars (%q...), chars %d, truncated %v, bytes %d; want %d chars, %d, %v, %d",
					utf8.RuneCountInString(got), prefix(got), tl.chars, truncated, tl.bytes, utf8.RuneCountInString(tc.tail), tc.chars, tc.truncated, total)
			}
			if whole := strings.Join(tc.writes, ""); int64(utf8.RuneCountInString(whole)) != tl.chars {
				t.Fatalf("streamed count %d differs from utf8.RuneCount %d", tl.chars, utf8.RuneCountInString(whole))
			}
		})
	}
}

func splitEvery(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

func prefix(s string) string {
	if len(s) > 20 {
		return s[:20]
	}
	return s
}

func TestBigOutputKeepsTailCountsAndArtifact(t *testing.T) {
	root := t.TempDir()
	// 3 MiB of numbered lines: more than the tail, more than is streamed.
	res, rec := run(t, quickRunner(), Request{Command: "seq 1 400000", ArtifactRoot: root})
	if res.ExitCode != 0 {
		t.Fatalf("exit %d", res.ExitCode)
	}
	art := readArtifact(t, root, res.Stdout.Artifact)
	var want strings.Builder
	for i := 1; i <= 400000; i++ {
		want.WriteString(strconv.Itoa(i))
		want.WriteByte('\n')
	}
	if art != want.String() {
		t.Fatalf("artifact of %d bytes differs from seq's %d bytes of output", len(art), want.Len())
	}
	if int64(len(art)) != res.Stdout.Bytes || res.Stdout.Chars != res.Stdout.Bytes || !strings.HasSuffix(art, "\n400000\n") {
		t.Fatalf("artifact %d bytes, counted %d bytes %d chars", len(art), res.Stdout.Bytes, res.Stdout.Chars)
	}
	if !res.Stdout.Truncated || utf8.RuneCountInString(res.Stdout.Tail) != TailChars || !strings.HasSuffix(art, res.Stdout.Tail) {
		t.Fatalf("tail of %d chars, truncated %v", utf8.RuneCountInString(res.Stdout.Tail), res.Stdout.Truncated)
	}
	streamed := rec.stream("stdout")
	if int64(len(streamed)) != res.Stdout.StreamedBytes || res.Stdout.StreamedBytes > StreamedLimit ||
		res.Stdout.StreamedBytes+res.Stdout.SkippedBytes != res.Stdout.Bytes {
		t.Fatalf("streamed %d (recorded %d) + skipped %d != %d bytes, or over the limit", res.Stdout.StreamedBytes, len(streamed), res.Stdout.SkippedBytes, res.Stdout.Bytes)
	}
	if !strings.HasPrefix(art, streamed[:min(len(streamed), 1000)]) {
		t.Fatal("the first streamed chunk is not the start of the output")
	}
}

// Bulk output read through the big buffer arrives byte for byte.
func TestBulkOutputIsExact(t *testing.T) {
	root := t.TempDir()
	res, _ := run(t, quickRunner(), Request{Command: "yes abcdefghijklmnopqrstuvwxyz0123456789 | head -c 9000000", ArtifactRoot: root})
	art := readArtifact(t, root, res.Stdout.Artifact)
	want := strings.Repeat("abcdefghijklmnopqrstuvwxyz0123456789\n", 9000000/37+1)[:9000000]
	if art != want || res.Stdout.Bytes != 9000000 {
		t.Fatalf("artifact of %d bytes differs from the %d bytes written", len(art), len(want))
	}
}

func TestChunksAreBounded(t *testing.T) {
	rec := &chunkSizes{}
	res, _ := run(t, quickRunner(), Request{Command: "head -c 300000 /dev/zero", Emit: rec})
	if res.Stdout.Bytes != 300000 {
		t.Fatalf("bytes %d", res.Stdout.Bytes)
	}
	for _, n := range rec.sizes {
		if n > ChunkBytes || n == 0 {
			t.Fatalf("chunk of %d bytes; want 1..%d", n, ChunkBytes)
		}
	}
}

type chunkSizes struct{ sizes []int }

func (c *chunkSizes) Output(_ string, data []byte) error {
	c.sizes = append(c.sizes, len(data))
	return nil
}
func (c *chunkSizes) Artifact(string, string, int64, string) error { return nil }

func TestArtifactFailureKeepsDrainingAndFails(t *testing.T) {
	root := t.TempDir()
	// A file where the terminal directory should be: the artifact cannot
	// be created, yet the command runs and its output is drained.
	if err := os.WriteFile(filepath.Join(root, "terminal"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	res, rec := run(t, quickRunner(), Request{Command: "seq 1 100000; echo done >&2", ArtifactRoot: root})
	if res.ExitReason != ReasonFailed || res.ExitCode != 0 || !strings.Contains(res.Error, "artifact") {
		t.Fatalf("reason %s, code %d, error %q; want failed with the artifact named", res.ExitReason, res.ExitCode, res.Error)
	}
	if !strings.HasSuffix(res.Stdout.Tail, "\n100000\n") || res.Stderr.Tail != "done\n" || res.Stdout.Artifact != "" {
		t.Fatalf("the pipe was not drained to the end: %+v", res.Stdout)
	}
	if len(rec.artifacts) != 0 {
		t.Fatalf("artifact refs %v for files that were never written", rec.artifacts)
	}
}

func TestArtifactWriteErrorKeepsDraining(t *testing.T) {
	// /dev/full fails every write with ENOSPC, as a full disk does.
	f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full")
	}
	a := &artifact{rel: "x"}
	a.start(f)
	s := newStream("stdout", redact.FromMap(nil), a, make(chan chunk, 1000))
	for range 3 {
		_, _ = s.red.Write(make([]byte, artifactBuffer))
	}
	res, artErr := s.finish()
	if artErr == nil || res.Bytes != 3*artifactBuffer || res.Artifact != "" {
		t.Fatalf("error %v, bytes %d, artifact %q", artErr, res.Bytes, res.Artifact)
	}
}

// Bound secrets never reach the chunks, the tail or the artifact, however
// the output is cut into writes.
func TestSecretsRedactedAcrossRandomSplits(t *testing.T) {
	secrets := map[string]string{
		"API_TOKEN": "tok_9f8e7d6c5b4a39281706",
		"PASS":      "hunter2-but-longer",
		"OVERLAP":   "tok_9f8e7d", // a prefix of another secret
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	rn := quickRunner()
	for round := range 12 {
		var out strings.Builder
		for range 20 {
			switch rng.IntN(4) {
			case 0:
				out.WriteString(secrets["API_TOKEN"])
			case 1:
				out.WriteString(secrets["PASS"])
			case 2:
				out.WriteString(secrets["OVERLAP"] + "X")
			default:
				out.WriteString("plain text " + strconv.Itoa(rng.IntN(1000)) + "\n")
			}
		}
		data := out.String()
		var pieces []string
		for rest := data; len(rest) > 0; {
			n := min(len(rest), 1+rng.IntN(9))
			pieces = append(pieces, hex.EncodeToString([]byte(rest[:n])))
			rest = rest[n:]
		}
		root := t.TempDir()
		env := testEnv(writerChildEnv + "=" + strings.Join(pieces, ","))
		res, rec := run(t, rn, Request{Command: strconv.Quote(self), Env: env, Secrets: secrets, ArtifactRoot: root})
		if res.ExitCode != 0 {
			t.Fatalf("round %d: writer exited %d", round, res.ExitCode)
		}
		art := readArtifact(t, root, res.Stdout.Artifact)
		for name, view := range map[string]string{"artifact": art, "chunks": rec.stream("stdout"), "tail": res.Stdout.Tail} {
			for target, v := range secrets {
				if strings.Contains(view, v) {
					t.Fatalf("round %d: %s holds the value of %s", round, name, target)
				}
			}
		}
		if !strings.Contains(art, "<redacted:") || art != rec.stream("stdout") {
			t.Fatalf("round %d: artifact and chunks differ or nothing was redacted", round)
		}
	}
}

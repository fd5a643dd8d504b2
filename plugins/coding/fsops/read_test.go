package fsops

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func numberedLines(n int) string {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, "line %d\n", i)
	}
	return sb.String()
}

func TestReadWindow(t *testing.T) {
	fx := newFixture(t)
	fx.write(t, "ten.txt", numberedLines(10))
	fx.write(t, "nonl.txt", "a\nb\nc")
	fx.write(t, "crlf.txt", "a\r\nb\r\n")
	fx.write(t, "empty.txt", "")
	fx.write(t, "blank.txt", "\n")
	fx.write(t, "long.txt", "short\n"+strings.Repeat("é", 50)+"\nafter\n")
	fx.write(t, "wide.txt", strings.Repeat(strings.Repeat("x", 9)+"\n", 10))
	fx.write(t, "latin1.txt", "caf\xe9 au lait\nna\xefve\n")
	fx.write(t, "late-nul.txt", strings.Repeat("text line\n", 1000)+"bin\x00ary\nafter 1\nafter 2\n") // the NUL lies past the first 8 KiB

	small := defaultReadLimits
	small.lineChars = 10
	small.charBudget = 35 // three 10-byte lines fit, the fourth does not
	small.countBudget = 1 << 20

	narrow := defaultReadLimits
	narrow.lineChars = 10

	tests := []struct {
		name      string
		p         ReadParams
		lim       *readLimits
		content   string
		start     int
		end       int
		total     int // -1: unknown
		truncated bool
		stopped   []string
		next      int
		cut       int
		note      string
	}{
		{name: "whole file", p: ReadParams{Path: "ten.txt"}, content: numberedLines(10), start: 1, end: 10, total: 10},
		{name: "window in the middle", p: ReadParams{Path: "ten.txt", Offset: 3, Limit: 2}, content: "line 3\nline 4\n", start: 3, end: 4, total: 10, truncated: true, stopped: []string{"limit"}, next: 5},
		{name: "window ending at the last line", p: ReadParams{Path: "ten.txt", Offset: 9, Limit: 2}, content: "line 9\nline 10\n", start: 9, end: 10, total: 10},
		{name: "offset past the end", p: ReadParams{Path: "ten.txt", Offset: 50}, content: "", total: 10, note: "past the end"},
		{name: "offset one past the last line", p: ReadParams{Path: "ten.txt", Offset: 11}, content: "", total: 10, note: "past the end"},
		{name: "last lines", p: ReadParams{Path: "ten.txt", Offset: -3}, content: "line 8\nline 9\nline 10\n", start: 8, end: 10, total: 10},
		{name: "more last lines than the file has", p: ReadParams{Path: "ten.txt", Offset: -50}, content: numberedLines(10), start: 1, end: 10, total: 10},
		{name: "last lines with a limit", p: ReadParams{Path: "ten.txt", Offset: -5, Limit: 2}, content: "line 6\nline 7\n", start: 6, end: 7, total: 10, truncated: true, stopped: []string{"limit"}, next: -3},
		{name: "no final newline", p: ReadParams{Path: "nonl.txt"}, content: "a\nb\nc", start: 1, end: 3, total: 3},
		{name: "no final newline, last line", p: ReadParams{Path: "nonl.txt", Offset: -1}, content: "c", start: 3, end: 3, total: 3},
		{name: "carriage returns kept", p: ReadParams{Path: "crlf.txt"}, content: "a\r\nb\r\n", start: 1, end: 2, total: 2},
		{name: "empty file", p: ReadParams{Path: "empty.txt"}, content: "", total: 0},
		{name: "empty file from the end", p: ReadParams{Path: "empty.txt", Offset: -5}, content: "", total: 0},
		{name: "one empty line", p: ReadParams{Path: "blank.txt", Offset: -5}, content: "\n", start: 1, end: 1, total: 1},
		{name: "long line cut", p: ReadParams{Path: "long.txt"}, lim: &narrow, content: "short\n" + strings.Repeat("é", 10) + " …[line cut: 80 more bytes]\nafter\n", start: 1, end: 3, total: 3, cut: 1},
		{name: "character budget", p: ReadParams{Path: "wide.txt"}, lim: &small, content: strings.Repeat(strings.Repeat("x", 9)+"\n", 3), start: 1, end: 3, total: 10, truncated: true, stopped: []string{"char_budget"}, next: 4},
		{name: "character budget from the end", p: ReadParams{Path: "wide.txt", Offset: -5}, lim: &small, content: strings.Repeat(strings.Repeat("x", 9)+"\n", 3), start: 6, end: 8, total: 10, truncated: true, stopped: []string{"char_budget"}, next: -2},
		{name: "invalid bytes in text shown as U+FFFD", p: ReadParams{Path: "latin1.txt"}, content: "caf\uFFFD au lait\nna\uFFFDve\n", start: 1, end: 2, total: 2,
			note: "2 line(s) held bytes that are not valid UTF-8; each run of such bytes is shown as U+FFFD"},
		{name: "NUL after the sniffed head stops the window before its line", p: ReadParams{Path: "late-nul.txt"}, content: strings.Repeat("text line\n", 1000),
			start: 1, end: 1000, total: -1, truncated: true, stopped: []string{"binary_data"}, next: 1002, note: "line 1001 holds bytes that are not text (NUL)"},
		{name: "NUL after the head, read from the end", p: ReadParams{Path: "late-nul.txt", Offset: -3}, content: "",
			total: 1003, truncated: true, stopped: []string{"binary_data"}, next: -3, note: "line 1 of this window holds bytes that are not text (NUL)"},
		{name: "text after the NUL line", p: ReadParams{Path: "late-nul.txt", Offset: 1002}, content: "after 1\nafter 2\n", start: 1002, end: 1003, total: 1003},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lim := defaultReadLimits
			if tc.lim != nil {
				lim = *tc.lim
			}
			res, err := readFile(context.Background(), fx.ws, tc.p, lim)
			if err != nil {
				t.Fatal(err)
			}
			if res.Content != tc.content {
				t.Fatalf("content = %q, want %q", res.Content, tc.content)
			}
			if res.StartLine != tc.start || res.EndLine != tc.end {
				t.Errorf("lines %d-%d, want %d-%d", res.StartLine, res.EndLine, tc.start, tc.end)
			}
			if got := strings.Count(res.Content, "\n") + boolInt(res.Content != "" && !strings.HasSuffix(res.Content, "\n")); res.LinesReturned != got {
				t.Errorf("lines_returned = %d, content has %d", res.LinesReturned, got)
			}
			if tc.total >= 0 && (!res.TotalLinesKnown || res.TotalLines != tc.total) {
				t.Errorf("total_lines = %d (known %v), want %d", res.TotalLines, res.TotalLinesKnown, tc.total)
			}
			if res.Truncated != tc.truncated || !slices.Equal(res.StoppedBy, tc.stopped) || res.NextOffset != tc.next {
				t.Errorf("truncated %v stopped_by %v next %d, want %v %v %d", res.Truncated, res.StoppedBy, res.NextOffset, tc.truncated, tc.stopped, tc.next)
			}
			if !strings.Contains(res.Note, tc.note) || (tc.note == "" && res.Note != "") {
				t.Errorf("note %q, want %q", res.Note, tc.note)
			}
			if res.LinesCut != tc.cut {
				t.Errorf("lines_cut = %d, want %d", res.LinesCut, tc.cut)
			}
			if res.FileSize == 0 && tc.content != "" || res.BytesScanned > res.FileSize {
				t.Errorf("file_size %d bytes_scanned %d", res.FileSize, res.BytesScanned)
			}
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// The window stops scanning once it is full: a read at the start of a
// large file scans about the window, not the file, and says the total is
// unknown.
func TestReadStopsScanningWhenWindowIsFull(t *testing.T) {
	fx := newFixture(t)
	fx.write(t, "big.txt", numberedLines(200000)) // ~2.3 MB
	lim := defaultReadLimits
	lim.countBudget = 64 << 10
	res, err := readFile(context.Background(), fx.ws, ReadParams{Path: "big.txt", Limit: 10}, lim)
	if err != nil {
		t.Fatal(err)
	}
	if res.LinesReturned != 10 || res.TotalLinesKnown || !res.Truncated || res.NextOffset != 11 {
		t.Fatalf("result %+v", res)
	}
	if res.BytesScanned > 256<<10 || res.FileSize < 2<<20 {
		t.Fatalf("scanned %d of %d bytes", res.BytesScanned, res.FileSize)
	}
	// With the default count budget the rest is counted and the total known.
	res, err = ReadFile(context.Background(), fx.ws, ReadParams{Path: "big.txt", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TotalLinesKnown || res.TotalLines != 200000 {
		t.Fatalf("total %d known %v", res.TotalLines, res.TotalLinesKnown)
	}
}

func TestReadByteBudget(t *testing.T) {
	fx := newFixture(t)
	fx.write(t, "big.txt", numberedLines(5000))
	fx.write(t, "oneline.txt", strings.Repeat("y", 100000))
	lim := defaultReadLimits
	lim.byteBudget = 4096
	lim.lineChars = 100

	res, err := readFile(context.Background(), fx.ws, ReadParams{Path: "big.txt", Offset: 4000}, lim)
	if err != nil {
		t.Fatal(err)
	}
	if res.LinesReturned != 0 || !res.Truncated || !slices.Equal(res.StoppedBy, []string{"byte_budget"}) || !strings.Contains(res.Note, "negative offset") {
		t.Fatalf("offset beyond the budget: %+v", res)
	}
	if res.BytesScanned > lim.byteBudget {
		t.Fatalf("scanned %d > budget %d", res.BytesScanned, lim.byteBudget)
	}

	res, err = readFile(context.Background(), fx.ws, ReadParams{Path: "big.txt", Offset: -3000}, lim)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated || !slices.Contains(res.StoppedBy, "byte_budget") || res.LinesReturned == 0 || res.LinesReturned >= 3000 {
		t.Fatalf("tail beyond the budget: %d lines, %+v", res.LinesReturned, res.StoppedBy)
	}
	if !strings.HasSuffix(res.Content, "line 5000\n") || !strings.HasPrefix(res.Content, "line ") {
		t.Fatalf("tail window does not hold whole lines up to the end: %q…%q", res.Content[:20], tail(res.Content, 20))
	}

	res, err = readFile(context.Background(), fx.ws, ReadParams{Path: "oneline.txt", Offset: -1}, lim)
	if err != nil {
		t.Fatal(err)
	}
	if res.LinesReturned != 1 || res.LinesCut != 1 || !strings.Contains(res.Note, "mid-line") {
		t.Fatalf("one line longer than the budget: %+v", res)
	}
}

func TestReadBinary(t *testing.T) {
	fx := newFixture(t)
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + strings.Repeat("\x00", 100)
	fx.write(t, "image.png", png)
	fx.write(t, "nul.txt", "text\x00more text\n")
	noise := make([]byte, 4096)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range noise {
		noise[i] = byte(0x80 + r.IntN(0x80)) // high bytes, no NUL: invalid UTF-8 dominates
	}
	fx.write(t, "noise.bin", string(noise))
	tests := []struct {
		path, mime string
	}{
		{"image.png", "image/png"},
		{"nul.txt", "application/octet-stream"},
		{"noise.bin", "application/octet-stream"},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			res, err := ReadFile(context.Background(), fx.ws, ReadParams{Path: tc.path, Offset: -5})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Binary || res.Content != "" || res.MimeType != tc.mime || res.FileSize == 0 || !strings.Contains(res.Note, "binary") {
				t.Fatalf("result %+v", res)
			}
		})
	}
}

func TestLooksBinary(t *testing.T) {
	tests := []struct {
		name string
		head string
		full bool
		want bool
	}{
		{"ascii", "hello\n", true, false},
		{"utf-8", "héllo wörld ✓\n", true, false},
		{"a few latin-1 bytes", "caf\xe9 and more plain text here\n", true, false},
		{"nul", "a\x00b", true, true},
		{"mostly invalid", "\xff\xfe\xfd\xfc\xfb\xfaab", true, true},
		{"rune cut by the sample", strings.Repeat("a", 20) + "\xe2\x9c", false, false},
		{"rune cut at the end of the file", "\xe2\x9c", true, true},
		{"empty", "", true, false},
	}
	for _, tc := range tests {
		if got := looksBinary([]byte(tc.head), tc.full); got != tc.want {
			t.Errorf("%s: looksBinary = %v, want %v", tc.name, got, tc.want)
		}
	}
}

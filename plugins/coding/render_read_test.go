package main

import (
	"testing"

	"demiurge.dev/plugins/coding/fsops"
)

func TestRenderRead(t *testing.T) {
	tests := []struct {
		name string
		r    fsops.ReadResult
		want string
	}{
		{
			name: "whole file",
			r: fsops.ReadResult{Path: "a.go", Content: "package a\n\nfunc A() {}\n", StartLine: 1, EndLine: 3, LinesReturned: 3,
				TotalLines: 3, TotalLinesKnown: true, BytesScanned: 23, FileSize: 23},
			want: "     1\tpackage a\n     2\t\n     3\tfunc A() {}\n[a.go: lines 1-3 of 3; 23 of 23 bytes scanned]",
		},
		{
			name: "whole file with its sha256",
			r: fsops.ReadResult{Path: "a.go", Content: "x\n", StartLine: 1, EndLine: 1, LinesReturned: 1,
				TotalLines: 1, TotalLinesKnown: true, BytesScanned: 2, FileSize: 2, SHA256: "e3b0"},
			want: "     1\tx\n[a.go: lines 1-1 of 1; 2 of 2 bytes scanned; sha256 e3b0]",
		},
		{
			name: "no final newline",
			r: fsops.ReadResult{Path: "a.txt", Content: "x\ny", StartLine: 1, EndLine: 2, LinesReturned: 2,
				TotalLines: 2, TotalLinesKnown: true, BytesScanned: 3, FileSize: 3},
			want: "     1\tx\n     2\ty\n[a.txt: lines 1-2 of 2; 3 of 3 bytes scanned]",
		},
		{
			name: "window stopped by the limit",
			r: fsops.ReadResult{Path: "big.txt", Content: "line 5\nline 6\n", StartLine: 5, EndLine: 6, LinesReturned: 2,
				TotalLines: 30, TotalLinesKnown: true, BytesScanned: 231, FileSize: 231,
				Truncated: true, StoppedBy: []string{"limit"}, NextOffset: 7},
			want: "     5\tline 5\n     6\tline 6\n[big.txt: lines 5-6 of 30; 231 of 231 bytes scanned; stopped by limit; continue with offset=7]",
		},
		{
			name: "line numbers wider than the column",
			r: fsops.ReadResult{Path: "huge.log", Content: "x\n", StartLine: 1234567, EndLine: 1234567, LinesReturned: 1,
				BytesScanned: 4 << 20, FileSize: 1 << 30, Truncated: true, StoppedBy: []string{"limit", "byte_budget"}, NextOffset: 1234568},
			want: "1234567\tx\n[huge.log: lines 1234567-1234567; 4194304 of 1073741824 bytes scanned; stopped by limit, byte_budget; continue with offset=1234568]",
		},
		{
			// A read from the end of a file too large to count knows no
			// absolute line numbers: the lines are not numbered.
			name: "tail without absolute line numbers",
			r: fsops.ReadResult{Path: "big.log", Content: "last but one\nlast\n", LinesReturned: 2,
				BytesScanned: 4096, FileSize: 1 << 30},
			want: "last but one\nlast\n[big.log: last 2 lines; 4096 of 1073741824 bytes scanned]",
		},
		{
			name: "tail of a small file has line numbers",
			r: fsops.ReadResult{Path: "s.txt", Content: "c\n", StartLine: 3, EndLine: 3, LinesReturned: 1,
				TotalLines: 3, TotalLinesKnown: true, BytesScanned: 6, FileSize: 6},
			want: "     3\tc\n[s.txt: lines 3-3 of 3; 6 of 6 bytes scanned]",
		},
		{
			name: "cut lines and the character budget",
			r: fsops.ReadResult{Path: "min.js", Content: "aaa…[cut]\n", StartLine: 1, EndLine: 1, LinesReturned: 1,
				BytesScanned: 90000, FileSize: 200000, Truncated: true, StoppedBy: []string{"char_budget"}, NextOffset: 2, LinesCut: 1},
			want: "     1\taaa…[cut]\n[min.js: lines 1-1; 90000 of 200000 bytes scanned; stopped by char_budget; continue with offset=2; 1 long lines cut]",
		},
		{
			name: "past the end",
			r: fsops.ReadResult{Path: "s.txt", TotalLines: 30, TotalLinesKnown: true, BytesScanned: 231, FileSize: 231,
				Note: "offset 50 is past the end of the file (30 lines)"},
			want: "[s.txt: no lines in this window; the file has 30 lines; 231 of 231 bytes scanned; offset 50 is past the end of the file (30 lines)]",
		},
		{
			name: "empty file",
			r:    fsops.ReadResult{Path: "empty.txt", TotalLinesKnown: true},
			want: "[empty.txt: no lines in this window; the file has 0 lines; 0 of 0 bytes scanned]",
		},
		{
			name: "offset beyond the byte budget",
			r: fsops.ReadResult{Path: "big.log", BytesScanned: 64 << 20, FileSize: 1 << 30, Truncated: true, StoppedBy: []string{"byte_budget"},
				Note: "line 9000000 lies beyond the first 67108864 bytes scanned (reached line 800000); use a negative offset to read from the end"},
			want: "[big.log: no lines in this window; 67108864 of 1073741824 bytes scanned; stopped by byte_budget; line 9000000 lies beyond the first 67108864 bytes scanned (reached line 800000); use a negative offset to read from the end]",
		},
		{
			name: "binary",
			r: fsops.ReadResult{Path: "logo.png", Binary: true, MimeType: "image/png", FileSize: 5120, BytesScanned: 5120,
				Note: "binary file (image/png, 5120 bytes); its bytes are not shown as text"},
			want: "logo.png is a binary file (image/png, 5120 bytes); it was not read as text.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := renderRead(tt.r); got != tt.want {
				t.Errorf("renderRead =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

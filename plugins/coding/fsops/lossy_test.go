package fsops

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

// TestAWriteNeverTurnsBytesItCouldNotShowIntoU_FFFD: read_file shows bytes
// that are not valid UTF-8 as U+FFFD; content copied from it and written
// back replaced a Latin-1 file's "é" with U+FFFD for good. Such a write
// (content with U+FFFD over a file that is not valid UTF-8) is refused,
// before approval and at the write, the file kept; content without U+FFFD,
// or a valid UTF-8 file, is written as asked.
func TestAWriteNeverTurnsBytesItCouldNotShowIntoU_FFFD(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	latin1 := "caf\xe9 au lait\nna\xefve\n"
	fx.write(t, "latin1.txt", latin1)
	p := WriteParams{Path: "latin1.txt", Content: "caf\ufffd au lait\nna\ufffdve\nthird\n"}
	perr := WritePrecheck(ctx, fx.ws, p)
	_, err := WriteFile(ctx, fx.ws, p)
	if !errors.Is(perr, ErrLossyRewrite) || !errors.Is(err, ErrLossyRewrite) || !strings.Contains(err.Error(), "Use patch") {
		t.Fatalf("precheck %v, write %v; want both refused as lossy", perr, err)
	}
	if b, _ := os.ReadFile(fx.in("latin1.txt")); string(b) != latin1 {
		t.Fatalf("latin1.txt = %q", b)
	}
	// The model chose the characters: written.
	if _, err := WriteFile(ctx, fx.ws, WriteParams{Path: "latin1.txt", Content: "café au lait\n"}); err != nil {
		t.Fatal(err)
	}
	// A valid UTF-8 file may get U+FFFD; so may a new one.
	fx.write(t, "utf8.txt", "plain\n")
	for _, path := range []string{"utf8.txt", "new.txt"} {
		if _, err := WriteFile(ctx, fx.ws, WriteParams{Path: path, Content: "x\ufffd\n"}); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
}

// TestValidUTF8AcrossReads: the streaming check agrees with utf8.Valid
// when sequences are cut by every read size.
func TestValidUTF8AcrossReads(t *testing.T) {
	for _, s := range []string{"", "abc", "é", "日本語テキスト", "😀x😀", "caf\xe9", "\xe6\x97", "ok\xf0\x9f\x98", "\x80", "a\xc3", strings.Repeat("é", 70000), strings.Repeat("é", 70000) + "\xff"} {
		got, err := validUTF8(iotest.OneByteReader(bytes.NewReader([]byte(s))))
		if err != nil || got != utf8.ValidString(s) {
			t.Errorf("%q (one byte a read): %v %v", s, got, err)
		}
		got, err = validUTF8(bytes.NewReader([]byte(s)))
		if err != nil || got != utf8.ValidString(s) {
			t.Errorf("%q: %v %v", s, got, err)
		}
	}
}

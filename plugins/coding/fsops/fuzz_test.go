package fsops

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

const outsideSecret = "OUTSIDE-SECRET-CONTENT"

// FuzzResolvePath sends arbitrary paths through the boundary: nothing
// panics, and whatever opens (for reading, or as the pinned parent of a
// write) really lies inside the root, or is the one granted path.
func FuzzResolvePath(f *testing.F) {
	base := f.TempDir()
	root, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{root + "/sub/deep", outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			f.Fatal(err)
		}
	}
	for name, content := range map[string]string{
		root + "/a.txt":          "inside\n",
		root + "/sub/deep/b.txt": "inside\n",
		outside + "/secret.txt":  outsideSecret,
		outside + "/granted.txt": "granted\n",
	} {
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		root + "/up":          "..",
		root + "/abs":         outside,
		root + "/sub/back":    "../../outside/secret.txt",
		root + "/sub/ok":      "deep/b.txt",
		root + "/sub/deep/up": "../..",
	} {
		if err := os.Symlink(target, link); err != nil {
			f.Fatal(err)
		}
	}
	granted := filepath.Join(outside, "granted.txt")
	ws, err := OpenWorkspace(root, []Grant{{Path: granted}})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { ws.Close() })

	for _, seed := range []string{
		"a.txt", "../outside/secret.txt", "/etc/passwd", outside + "/secret.txt", granted,
		"sub/../../outside/secret.txt", "up/outside/secret.txt", "abs/secret.txt", "sub/back",
		"sub/ok", "sub/deep/up/a.txt", "sub/deep/up/up/outside/secret.txt", ".", "", "a.txt\x00",
		"./a.txt/", "//a.txt", root + "/../outside/secret.txt", "sub///deep/./b.txt", "~/.ssh/id_rsa",
	} {
		f.Add(seed)
	}
	inside := func(real string) bool {
		return real == ws.rootPath || strings.HasPrefix(real, ws.rootPath+"/") || real == granted
	}
	f.Fuzz(func(t *testing.T, p string) {
		if tg, err := ws.resolve(p); err == nil && !tg.grant {
			if _, ok := ws.relToRoot(tg.abs); !ok {
				t.Fatalf("resolve(%q) = %q, outside the root", p, tg.abs)
			}
		}
		if of, err := ws.openRead(p); err == nil {
			real, err := fdPath(of.f)
			of.Close()
			if err != nil || !inside(real) {
				t.Fatalf("openRead(%q) opened %q (%v)", p, real, err)
			}
		}
		if pp, err := ws.pinParent(p, false); err == nil {
			real, err := fdPath(pp.dir)
			pp.Close()
			if err != nil || !(inside(real) || real == filepath.Dir(granted)) {
				t.Fatalf("pinParent(%q) pinned %q (%v)", p, real, err)
			}
		}
		if res, err := ReadFile(context.Background(), ws, ReadParams{Path: p}); err == nil && strings.Contains(res.Content, outsideSecret) {
			t.Fatalf("ReadFile(%q) returned the outside secret", p)
		}
	})
}

// FuzzLineMatcher checks the literal prefilter against the plain
// definition: a line matches when the expression matches it, or matches it
// without the \r a CRLF line ends with.
func FuzzLineMatcher(f *testing.F) {
	for _, s := range []struct {
		pattern, text string
		fold          bool
	}{
		{`errors\.New\(`, "x := errors.New(\"a\")\nno\n", false},
		{`func \(\w+ \*Root\) Open`, "func (r *Root) Open(name string)\nfunc (r *Root) Close()\n", false},
		{`TODO`, "todo\nTODO\nToDo", true},
		{`kelvin`, "KELVIN \u212aelvin\n", true},
		{`^$`, "a\n\nb\n", false},
		{`$`, "a\nb", false},
		{`x*`, "", false},
		{`a\nb`, "a\nb\n", false},
		{`\s+end`, "start\n  end\n", false},
		{`(foo|bar)baz`, "barbaz\nfoobaz\nbaz\n", false},
		{`\bword\b`, "a word here\nswordfish\n", false},
		{`(?s)a.b`, "a\nb\naxb\n", false},
		{`\Astart`, "start\nnostart\nstart\n", false},
		{`\d+$`, "a 12\r\nb\r\n", false},
		{`one\r$`, "one\r\none\n", false},
		{`(?m)\d$`, "1\r\n2\n", false},
	} {
		f.Add(s.pattern, s.text, s.fold)
	}
	f.Fuzz(func(t *testing.T, pattern, text string, fold bool) {
		m, err := compileLineMatcher(pattern, fold)
		if err != nil {
			return
		}
		prefix := ""
		if fold {
			prefix = "(?i)"
		}
		ref := regexp.MustCompile(prefix + pattern)
		lines := strings.Split(text, "\n")
		if strings.HasSuffix(text, "\n") || text == "" {
			lines = lines[:len(lines)-1]
		}
		var want []int
		for i, l := range lines {
			if ref.MatchString(l) || (strings.HasSuffix(l, "\r") && ref.MatchString(strings.TrimSuffix(l, "\r"))) {
				want = append(want, i)
			}
		}
		var got []int
		b := []byte(text)
		m.eachLine(b, func(start, end int) bool {
			if end < start || end > len(b) || (start > 0 && b[start-1] != '\n') || (end < len(b) && b[end] != '\n') {
				t.Fatalf("eachLine gave [%d,%d) which is not a line of %q", start, end, text)
			}
			got = append(got, bytes.Count(b[:start], []byte{'\n'}))
			return true
		})
		if len(got) != len(want) {
			t.Fatalf("pattern %q fold %v on %q: lines %v, want %v", pattern, fold, text, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("pattern %q fold %v on %q: lines %v, want %v", pattern, fold, text, got, want)
			}
		}
	})
}

// FuzzReplaceStream checks the streaming replacement, at any chunk size,
// against strings.Replace and strings.Count, and its count of every
// offset old starts at (overlapping too) against a naive scan.
func FuzzReplaceStream(f *testing.F) {
	f.Add("abcabcabc", "abc", "X", uint8(2), true)
	f.Add("aaaaa", "aaa", "b", uint8(1), false)
	f.Add("line one\nline two\n", "two\nline", "", uint8(4), true)
	f.Fuzz(func(t *testing.T, text, old, repl string, chunk uint8, all bool) {
		if old == "" {
			return
		}
		var out bytes.Buffer
		st, err := replaceStream(context.Background(), strings.NewReader(text), &out, []byte(old), []byte(repl), all, int(chunk)+1)
		if err != nil {
			t.Fatal(err)
		}
		n := -1
		if !all {
			n = 1
		}
		if want := strings.Replace(text, old, repl, n); out.String() != want {
			t.Fatalf("got %q, want %q", out.String(), want)
		}
		if want := strings.Count(text, old); st.matches != want {
			t.Fatalf("matches %d, want %d", st.matches, want)
		}
		starts := 0
		for i := 0; i+len(old) <= len(text); i++ {
			if text[i:i+len(old)] == old {
				starts++
			}
		}
		if st.starts != starts {
			t.Fatalf("starts %d, want %d", st.starts, starts)
		}
		_ = st.ex.render(old, repl) // must not panic
	})
}

// FuzzCompileGlob: a glob from the model never panics the matcher.
func FuzzCompileGlob(f *testing.F) {
	for _, g := range []string{"*.go", "src/**/x.go", "{a,b}/{c,d}", "[a-", "**", "/", "a/**/b/**/c", "{{a,b},c}"} {
		f.Add(g, "src/a/x.go")
	}
	f.Fuzz(func(t *testing.T, g, rel string) {
		m, err := compileGlob(g)
		if err != nil || m == nil {
			return
		}
		m.match(rel, filepath.Base(rel))
		m.mayContain(rel)
	})
}

package fsops

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

const (
	excerptBytes    = 4 << 10 // original text kept on each side of the first match
	excerptContext  = 3       // unchanged lines shown around the change
	excerptLineMax  = 160     // characters shown of one line
	excerptLinesMax = 8       // removed or added lines shown before eliding
)

// excerptCapture keeps the text around the first match of a streaming
// pass, in bounded memory, for a unified-diff-like excerpt.
type excerptCapture struct {
	matched     bool
	pre         []byte // tail of the text before the first match
	preClipped  bool   // pre lost its beginning
	post        []byte // head of the text after the first match
	linesBefore int    // newlines before the first match
}

func (c *excerptCapture) observe(b []byte) {
	if c.matched {
		if room := excerptBytes - len(c.post); room > 0 {
			c.post = append(c.post, b[:min(room, len(b))]...)
		}
		return
	}
	c.linesBefore += bytes.Count(b, []byte{'\n'})
	if len(b) >= excerptBytes {
		c.pre = append(c.pre[:0], b[len(b)-excerptBytes:]...)
		c.preClipped = true
		return
	}
	c.pre = append(c.pre, b...)
	if len(c.pre) > 2*excerptBytes {
		c.pre = append(c.pre[:0], c.pre[len(c.pre)-excerptBytes:]...)
		c.preClipped = true
	}
}

func (c *excerptCapture) atFirstMatch() { c.matched = true }

// render shows the first change as a unified-diff-like hunk.
func (c *excerptCapture) render(old, repl string) string {
	if !c.matched {
		return ""
	}
	pre := string(c.pre)
	var before []string
	prefix := pre
	if i := strings.LastIndexByte(pre, '\n'); i >= 0 {
		prefix = pre[i+1:]
		before = strings.Split(pre[:i], "\n")
		if c.preClipped && len(before) > 0 {
			before = before[1:] // its first line is cut
		}
		before = before[max(0, len(before)-excerptContext):]
	} else if c.preClipped {
		prefix = "…" + prefix
	}
	post := string(c.post)
	suffix := post
	var after []string
	if i := strings.IndexByte(post, '\n'); i >= 0 {
		suffix = post[:i]
		after = strings.Split(post[i+1:], "\n")
		if len(post) == excerptBytes && len(after) > 0 {
			after = after[:len(after)-1] // its last line is cut
		}
		if n := len(after); n > 0 && after[n-1] == "" {
			after = after[:n-1] // the text ended with a newline
		}
		after = after[:min(len(after), excerptContext)]
	}
	removed := strings.Split(prefix+old+suffix, "\n")
	added := strings.Split(prefix+repl+suffix, "\n")
	first := c.linesBefore + 1
	// Lines the edit leaves as they were are context, not a change: an
	// old_string ending in a newline otherwise drags the next line in.
	for len(removed) > 0 && len(added) > 0 && removed[0] == added[0] {
		before = append(before, removed[0])
		removed, added = removed[1:], added[1:]
		first++
	}
	for len(removed) > 0 && len(added) > 0 && removed[len(removed)-1] == added[len(added)-1] {
		last := removed[len(removed)-1]
		removed, added = removed[:len(removed)-1], added[:len(added)-1]
		if last == "" && len(after) == 0 {
			continue // the empty rest after a final newline is no line
		}
		after = append([]string{last}, after...)
	}
	after = after[:min(len(after), excerptContext)]
	before = before[max(0, len(before)-excerptContext):]
	var sb strings.Builder
	fmt.Fprintf(&sb, "@@ -%d,%d +%d,%d @@\n", first-len(before), len(before)+len(removed)+len(after),
		first-len(before), len(before)+len(added)+len(after))
	writeLines(&sb, " ", before, len(before))
	writeLines(&sb, "-", removed, excerptLinesMax)
	writeLines(&sb, "+", added, excerptLinesMax)
	writeLines(&sb, " ", after, len(after))
	return sb.String()
}

func writeLines(sb *strings.Builder, mark string, lines []string, max int) {
	for i, l := range lines {
		if i == max {
			fmt.Fprintf(sb, "%s… (%d more lines)\n", mark, len(lines)-max)
			return
		}
		sb.WriteString(mark)
		sb.WriteString(clipLine(l, excerptLineMax))
		sb.WriteByte('\n')
	}
}

// clipLine keeps the first n characters of a line, as valid UTF-8.
func clipLine(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for range n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + "…"
}

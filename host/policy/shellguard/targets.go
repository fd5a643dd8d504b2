package shellguard

import (
	"path"
	"strconv"
	"strings"
)

// A removal target is read the way the shell and the kernel will read it:
// braces expanded, tilde and the known variables ($HOME, $PWD) replaced,
// unknown expansions read as empty (the "$DIR/" that became "/" class),
// the path cleaned lexically (//, /./, /.., /proc/self/root), and globs
// matched against the directories they could reach. A target is rootish
// when it can name /, a system directory, a home directory or the
// workspace root, or hold one of them.

// maxBraceAlternatives bounds brace expansion; a larger one is not
// reviewed and counts as rootish (fail closed).
const maxBraceAlternatives = 256

// unknownHome and userHomePrefix stand for home directories whose path
// the guard does not know; NUL never occurs in a real path.
const (
	unknownHome    = "/\x00home"
	userHomePrefix = "/\x00home-of-"
)

// rootish reports whether a removal target (as rendered by readWord:
// quotes removed, expansions as written) can name a directory whose
// removal is a known destructive payload; what names it for the reason.
func (g *guard) rootish(t string) (what string, ok bool) {
	t = strings.TrimSpace(t)
	if t == "" {
		return "", false
	}
	if len(g.positional) > 1 && (strings.Contains(t, "$@") || strings.Contains(t, "$*")) {
		for _, p := range g.positional[1:] {
			alt := strings.NewReplacer("$@", p, "$*", p).Replace(t)
			if what, ok := g.rootishBraces(alt); ok {
				return what, true
			}
		}
		return "", false
	}
	return g.rootishBraces(t)
}

// rootishBraces judges every brace alternative of t.
func (g *guard) rootishBraces(t string) (string, bool) {
	if !strings.ContainsAny(t, "{") {
		return g.rootishOne(t)
	}
	if g.work > maxWork {
		return "a command with more brace alternatives than the guard reviews", true
	}
	alts, complete := expandBraces(t, maxBraceAlternatives)
	if g.work += len(alts); !complete || g.work > maxWork {
		return "a brace expansion of more than " + strconv.Itoa(maxBraceAlternatives) + " words, too large to review", true
	}
	for _, a := range alts {
		if what, ok := g.rootishOne(a); ok {
			return what, true
		}
	}
	return "", false
}

func (g *guard) rootishOne(t string) (string, bool) {
	p, ok := g.expandTarget(t)
	if !ok || p == "" {
		return "", false
	}
	if strings.HasPrefix(p, "/") {
		return g.classifySegs(nil, g.walkSegments(p))
	}
	if g.cwd == "" {
		return "", false
	}
	for _, d := range g.everyCwd() {
		if what, ok := g.classifySegs(nil, g.walkSegments(d+"/"+p)); ok {
			return what, true
		}
	}
	return "", false
}

// expandTarget replaces what the shell would put in: a leading tilde, the
// variables the guard knows; any other expansion is read as empty.
func (g *guard) expandTarget(t string) (string, bool) {
	home := g.home
	if home == "" {
		home = unknownHome
	}
	if strings.HasPrefix(t, "~") {
		user, rest, _ := strings.Cut(t[1:], "/")
		switch {
		case user == "":
			t = home + "/" + rest
		case user == "+":
			if g.cwd == "" {
				return "", false
			}
			t = g.cwd + "/" + rest
		case user == "-":
			return "", false // $OLDPWD: unknown, and never empty
		case user == "root":
			t = "/root/" + rest
		default:
			t = userHomePrefix + user + "/" + rest
		}
	}
	if !strings.ContainsAny(t, "$<`") {
		return t, true
	}
	var b strings.Builder
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case c == '$' && i+1 < len(t) && t[i+1] == '(':
			i = skipRendered(t, i, ")")
		case c == '$' && i+1 < len(t) && t[i+1] == '{':
			i = skipRendered(t, i, "}")
		case c == '<' && i+1 < len(t) && t[i+1] == '(':
			i = skipRendered(t, i, ")")
		case c == '$' && i+1 < len(t) && isNameStart(t[i+1]):
			j := i + 1
			for j < len(t) && isNameChar(t[j]) {
				j++
			}
			switch t[i+1 : j] {
			case "HOME":
				b.WriteString(home)
			case "PWD":
				if g.cwd == "" {
					return "", false
				}
				b.WriteString(g.cwd)
			}
			i = j - 1
		case c == '$' && i+1 < len(t) && t[i+1] >= '0' && t[i+1] <= '9':
			if n := int(t[i+1] - '0'); n < len(g.positional) {
				b.WriteString(g.positional[n])
			}
			i++
		case c == '$' && i+1 < len(t) && strings.IndexByte("@*#?$!-", t[i+1]) >= 0:
			i++
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// skipRendered skips a rendered expansion starting at i ($(...), ${...},
// $((...)), <(...)) and returns the index of its last byte.
func skipRendered(t string, i int, closer string) int {
	if j := strings.Index(t[i:], closer); j >= 0 {
		end := i + j + len(closer) - 1
		for end+1 < len(t) && t[end+1] == ')' && closer == ")" {
			end++
		}
		return end
	}
	return len(t) - 1
}

func isNameStart(c byte) bool { return c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') }
func isNameChar(c byte) bool  { return isNameStart(c) || (c >= '0' && c <= '9') }

// walkSegments cleans an absolute path lexically into its segments; a
// process's root (/proc/self/root, /proc/1/root, .../task/N/root) is /,
// and a process's cwd (/proc/self/cwd) is the command's directory, or
// (another process's) possibly /.
func (g *guard) walkSegments(p string) []string {
	var stack []string
	for seg := range strings.SplitSeq(p, "/") {
		switch seg {
		case "", ".":
			continue
		case "..":
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			continue
		}
		stack = append(stack, seg)
		n := len(stack)
		if n < 3 || stack[0] != "proc" {
			continue
		}
		switch {
		case stack[n-1] == "root" && (n == 3 || n == 5 && stack[2] == "task"):
			stack = stack[:0]
		case stack[n-1] == "cwd" && (n == 3 || n == 5 && stack[2] == "task"):
			if (stack[1] == "self" || stack[1] == "thread-self") && g.cwd != "" {
				stack = append(stack[:0], strings.Split(strings.TrimPrefix(g.cwd, "/"), "/")...)
			} else {
				stack = stack[:0]
			}
		}
	}
	return stack
}

// classifySegs judges the path prefix+rest, matching glob segments
// against the directories they could reach.
func (g *guard) classifySegs(prefix, rest []string) (string, bool) {
	for i, s := range rest {
		if !strings.ContainsAny(s, "*?[") {
			prefix = append(prefix, s)
			continue
		}
		if broadGlob(s) && allBroad(rest[i+1:]) {
			if what, ok := g.classify("/" + strings.Join(prefix, "/")); ok {
				return what + " (by the glob " + s + ")", true
			}
		}
		for _, c := range g.childrenOf(prefix) {
			if ok, _ := path.Match(s, c); ok {
				next := append(append([]string(nil), prefix...), c)
				if what, ok := g.classifySegs(next, rest[i+1:]); ok {
					return what + " (by the glob " + s + ")", true
				}
			}
		}
		return "", false
	}
	return g.classify("/" + strings.Join(prefix, "/"))
}

// broadGlob reports a glob segment that matches nearly every name: made of
// wildcards and bracket expressions only, after at most two leading dots
// (*, ?*, .*, [a-z]*, .[!.]*).
func broadGlob(s string) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "."), ".")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '*', '?':
		case '[':
			j := strings.IndexByte(s[i+1:], ']')
			if j < 0 {
				return false
			}
			if j == 0 { // []...] holds a literal ]
				if k := strings.IndexByte(s[i+2:], ']'); k >= 0 {
					j = k + 1
				}
			}
			i += j + 1
		default:
			return false
		}
	}
	return true
}

func allBroad(segs []string) bool {
	for _, s := range segs {
		if !broadGlob(s) {
			return false
		}
	}
	return true
}

// childrenOf lists the names a glob under dir could reach that matter:
// the system directories under /, and the next segment towards the home
// directory, the workspace root and the cwd.
func (g *guard) childrenOf(prefix []string) []string {
	dir := "/" + strings.Join(prefix, "/")
	out := append([]string(nil), systemDirChildren[dir]...)
	for _, p := range []string{g.home, g.root, g.cwd} {
		if p == "" || p == dir || !isAncestorOrSelf(dir, p) {
			continue
		}
		next, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(p, dir), "/"), "/")
		if next != "" {
			out = append(out, next)
		}
	}
	return out
}

// classify judges a clean absolute path.
func (g *guard) classify(abs string) (string, bool) {
	home := g.home
	if home == "" {
		home = unknownHome
	}
	switch {
	case abs == "/":
		return "/", true
	case systemDirs[abs]:
		return abs, true
	case abs == home:
		return "the home directory", true
	case strings.HasPrefix(abs, userHomePrefix) && !strings.Contains(abs[len(userHomePrefix):], "/"):
		return "the home directory of ~" + abs[len(userHomePrefix):], true
	case abs == g.root:
		return "the workspace root", true
	case g.root != "" && isAncestorOrSelf(abs, g.root):
		return abs + ", which holds the workspace", true
	case isAncestorOrSelf(abs, home):
		return abs + ", which holds the home directory", true
	}
	return "", false
}

func isAncestorOrSelf(dir, p string) bool {
	if dir == p || dir == "/" {
		return true
	}
	return strings.HasPrefix(p, dir+"/")
}

// expandBraces expands brace alternatives ({a,b}) and ranges ({1..3},
// {a..c}) as bash does, up to limit words; complete is false when there
// were more. ${...} is not a brace expansion.
func expandBraces(s string, limit int) (out []string, complete bool) {
	for i := 0; i < len(s); i++ {
		if s[i] != '{' || (i > 0 && s[i-1] == '$') {
			continue
		}
		depth, end := 0, -1
		var commas []int
	scan:
		for j := i; j < len(s); j++ {
			switch s[j] {
			case '{':
				depth++
			case '}':
				if depth--; depth == 0 {
					end = j
					break scan
				}
			case ',':
				if depth == 1 {
					commas = append(commas, j)
				}
			}
		}
		if end < 0 {
			return []string{s}, true
		}
		pre, body, post := s[:i], s[i+1:end], s[end+1:]
		var alts []string
		if len(commas) > 0 {
			last := i + 1
			for _, c := range commas {
				alts = append(alts, s[last:c])
				last = c + 1
			}
			alts = append(alts, s[last:end])
		} else if r, ok := braceRange(body, limit); ok {
			alts = r
		} else {
			continue
		}
		for _, a := range alts {
			more, ok := expandBraces(pre+a+post, limit-len(out))
			out = append(out, more...)
			if !ok || len(out) > limit {
				return out, false
			}
		}
		return out, true
	}
	return []string{s}, true
}

// braceRange expands {x..y} of integers or single letters.
func braceRange(body string, limit int) ([]string, bool) {
	lo, hi, ok := strings.Cut(body, "..")
	if !ok {
		return nil, false
	}
	hi, _, _ = strings.Cut(hi, "..") // an increment is ignored
	if a, err1 := strconv.Atoi(lo); err1 == nil {
		b, err2 := strconv.Atoi(hi)
		if err2 != nil {
			return nil, false
		}
		var out []string
		for n, step := a, sign(b-a); len(out) <= limit; n += step {
			out = append(out, strconv.Itoa(n))
			if n == b {
				break
			}
		}
		return out, true
	}
	if len(lo) == 1 && len(hi) == 1 {
		var out []string
		for c, step := int(lo[0]), sign(int(hi[0])-int(lo[0])); ; c += step {
			out = append(out, string(rune(c)))
			if c == int(hi[0]) {
				break
			}
		}
		return out, true
	}
	return nil, false
}

func sign(n int) int {
	if n < 0 {
		return -1
	}
	return 1
}

package fsops

import (
	"path"
	"strings"
)

// globMatcher matches paths relative to the search directory. A pattern
// without '/' matches the file name at any depth ("*.go" finds every Go
// file, as a model expects); a pattern with '/' matches the whole relative
// path, "**" standing for any number of directories, and a leading '/'
// anchors to the top level ("/*.go"). Braces {a,b} expand.
type globMatcher struct {
	patterns []globPattern
}

type globPattern struct {
	segs     []string
	baseOnly bool
}

// maxGlobExpansions bounds brace expansion ({a,b}{c,d}... multiplies).
const maxGlobExpansions = 64

func compileGlob(g string) (*globMatcher, error) {
	if g == "" {
		return nil, nil
	}
	alts, err := expandBraces(g)
	if err != nil {
		return nil, err
	}
	m := &globMatcher{}
	for _, a := range alts {
		// Any '/' anchors, a leading one too: "/*.go" is the top level only.
		anchored := strings.Contains(a, "/")
		a = strings.TrimPrefix(a, "./")
		a = strings.TrimPrefix(a, "/")
		if strings.HasSuffix(a, "/") {
			a += "**" // "dir/" means everything under dir
		}
		if a == "" {
			return nil, refuse("", ErrInvalidArgument, "glob %q is empty after expansion", g)
		}
		p := globPattern{baseOnly: !anchored}
		for _, s := range strings.Split(a, "/") {
			if s == "" || s == "." {
				continue
			}
			if strings.Contains(s, "**") && s != "**" {
				s = strings.ReplaceAll(s, "**", "*") // "a**b" is not recursive
			}
			if _, err := path.Match(s, ""); err != nil {
				return nil, refuse("", ErrInvalidArgument, "glob %q is malformed (%v); use *, ?, [a-z], ** and {a,b}", g, err)
			}
			p.segs = append(p.segs, s)
		}
		if len(p.segs) == 0 {
			return nil, refuse("", ErrInvalidArgument, "glob %q names no file; use a pattern such as *.go", g)
		}
		m.patterns = append(m.patterns, p)
	}
	return m, nil
}

// match reports whether the file at rel (slash-separated, relative to the
// search directory) with base name name matches.
func (m *globMatcher) match(rel, name string) bool {
	var segs []string
	for _, p := range m.patterns {
		if p.baseOnly {
			if ok, _ := path.Match(p.segs[0], name); ok {
				return true
			}
			continue
		}
		if segs == nil {
			segs = strings.Split(rel, "/")
		}
		if matchSegs(p.segs, segs) {
			return true
		}
	}
	return false
}

// mayContain reports whether a directory could hold a match, so that a
// pattern such as "cmd/**/main.go" does not walk the whole tree.
func (m *globMatcher) mayContain(dirRel string) bool {
	segs := strings.Split(dirRel, "/")
	for _, p := range m.patterns {
		if p.baseOnly || prefixMayMatch(p.segs, segs) {
			return true
		}
	}
	return false
}

func matchSegs(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for len(pat) > 0 && pat[0] == "**" {
				pat = pat[1:]
			}
			if len(pat) == 0 {
				return len(segs) > 0
			}
			for i := range segs {
				if matchSegs(pat, segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], segs[0]); !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

func prefixMayMatch(pat, dirSegs []string) bool {
	for _, d := range dirSegs {
		if len(pat) == 0 {
			return false
		}
		if pat[0] == "**" {
			return true
		}
		if ok, _ := path.Match(pat[0], d); !ok {
			return false
		}
		pat = pat[1:]
	}
	return len(pat) > 0
}

// expandBraces expands the first top-level {a,b} group and recurses.
func expandBraces(g string) ([]string, error) {
	out := []string{}
	var expand func(s string) error
	expand = func(s string) error {
		open := strings.IndexByte(s, '{')
		if open < 0 {
			if len(out) >= maxGlobExpansions {
				return refuse("", ErrInvalidArgument, "glob %q expands to more than %d patterns", g, maxGlobExpansions)
			}
			out = append(out, s)
			return nil
		}
		depth, close := 0, -1
		var parts []string
		last := open + 1
		for i := open; i < len(s) && close < 0; i++ {
			switch s[i] {
			case '{':
				depth++
			case '}':
				depth--
				if depth == 0 {
					close = i
					parts = append(parts, s[last:i])
				}
			case ',':
				if depth == 1 {
					parts = append(parts, s[last:i])
					last = i + 1
				}
			}
		}
		if close < 0 {
			return refuse("", ErrInvalidArgument, "glob %q has an unclosed '{'", g)
		}
		for _, p := range parts {
			if err := expand(s[:open] + p + s[close+1:]); err != nil {
				return err
			}
		}
		return nil
	}
	if err := expand(g); err != nil {
		return nil, err
	}
	return out, nil
}

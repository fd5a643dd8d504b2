package shellguard

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// configEntry is one key of a git config file: section and key folded to
// lower case, the subsection as written ("" when none).
type configEntry struct {
	section, subsection, key, value string
	line                            int
}

// name is the key as git config prints it.
func (e configEntry) name() string {
	if e.subsection != "" {
		return e.section + "." + e.subsection + "." + e.key
	}
	return e.section + "." + e.key
}

// parseGitConfig reads git's config syntax: [section], [section "sub"],
// the old [section.sub], keys with or without "= value", quoted values
// with \" \\ \n \t \b escapes, backslash-newline continuations, # and ;
// comments, a key on the header's line. What git would refuse is an
// error, and so is anything this reader does not know.
func parseGitConfig(data string) ([]configEntry, error) {
	p := configParser{s: strings.TrimPrefix(data, "\ufeff"), line: 1}
	return p.parse()
}

type configParser struct {
	s                   string
	i, line             int
	section, subsection string
	haveSection         bool
	out                 []configEntry
}

func (p *configParser) errorf(format string, a ...any) error {
	return fmt.Errorf("line %d: %s", p.line, fmt.Sprintf(format, a...))
}

func (p *configParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *configParser) parse() ([]configEntry, error) {
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '\n':
			p.line++
			p.i++
		case c == ' ' || c == '\t' || c == '\r':
			p.i++
		case c == '#' || c == ';':
			p.skipLine()
		case c == '[':
			if err := p.header(); err != nil {
				return nil, err
			}
		case isAlpha(c):
			if !p.haveSection {
				return nil, p.errorf("a key before any [section]")
			}
			if err := p.entry(); err != nil {
				return nil, err
			}
		default:
			return nil, p.errorf("unexpected %q", c)
		}
	}
	return p.out, nil
}

func (p *configParser) skipLine() {
	for p.i < len(p.s) && p.s[p.i] != '\n' {
		p.i++
	}
}

// header reads [name], [name "sub"] or [name.sub].
func (p *configParser) header() error {
	p.i++ // [
	start := p.i
	for p.i < len(p.s) && (isAlnum(p.s[p.i]) || p.s[p.i] == '-' || p.s[p.i] == '.') {
		p.i++
	}
	name := p.s[start:p.i]
	if name == "" {
		return p.errorf("a section header without a name")
	}
	p.section, p.subsection = strings.ToLower(name), ""
	if dot := strings.IndexByte(name, '.'); dot >= 0 {
		// The old form folds the subsection as well.
		p.section, p.subsection = strings.ToLower(name[:dot]), strings.ToLower(name[dot+1:])
	}
	switch p.peek() {
	case ']':
		p.i++
	case ' ', '\t':
		if p.subsection != "" {
			return p.errorf("a section header with both forms of subsection")
		}
		for c := p.peek(); c == ' ' || c == '\t'; c = p.peek() {
			p.i++
		}
		if p.peek() != '"' {
			return p.errorf("a section header with text after its name")
		}
		p.i++
		var sub strings.Builder
		for {
			if p.i >= len(p.s) || p.s[p.i] == '\n' {
				return p.errorf("an unterminated subsection name")
			}
			c := p.s[p.i]
			p.i++
			if c == '"' {
				break
			}
			if c == '\\' {
				if p.i >= len(p.s) || p.s[p.i] == '\n' {
					return p.errorf("an unterminated subsection name")
				}
				c = p.s[p.i]
				p.i++
			}
			sub.WriteByte(c)
		}
		if p.peek() != ']' {
			return p.errorf("text after a subsection name")
		}
		p.i++
		p.subsection = sub.String()
	default:
		return p.errorf("a malformed section header")
	}
	p.haveSection = true
	return nil
}

// entry reads "key", "key = value" up to the end of its (continued) line.
func (p *configParser) entry() error {
	start, line := p.i, p.line
	for p.i < len(p.s) && (isAlnum(p.s[p.i]) || p.s[p.i] == '-') {
		p.i++
	}
	key := strings.ToLower(p.s[start:p.i])
	for c := p.peek(); c == ' ' || c == '\t'; c = p.peek() {
		p.i++
	}
	value := ""
	switch c := p.peek(); {
	case c == '=':
		p.i++
		v, err := p.value()
		if err != nil {
			return err
		}
		value = v
	case c == 0 || c == '\n' || c == '\r' || c == '#' || c == ';':
		p.skipLine() // a bare key is true
	default:
		return p.errorf("key %q is followed by %q", key, c)
	}
	p.out = append(p.out, configEntry{section: p.section, subsection: p.subsection, key: key, value: value, line: line})
	return nil
}

// value reads a value as git does: leading blanks skipped, quotes
// toggled, escapes resolved, comments outside quotes ending it, blanks at
// the end (outside quotes) dropped.
func (p *configParser) value() (string, error) {
	var b strings.Builder
	quoted, pending := false, 0 // pending: blanks kept only if more text follows
	started := false
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		switch {
		case c == '\n':
			if quoted {
				return "", p.errorf("an unterminated quoted value")
			}
			p.line++
			return b.String(), nil
		case !quoted && (c == '#' || c == ';'):
			p.skipLine()
			return b.String(), nil
		case !quoted && (c == ' ' || c == '\t' || c == '\r'):
			if started {
				pending++
			}
			continue
		case c == '"':
			quoted = !quoted
			started = true
			continue
		case c == '\\':
			if p.i >= len(p.s) {
				return "", p.errorf("a value ends in a backslash")
			}
			e := p.s[p.i]
			p.i++
			switch e {
			case '\n':
				p.line++
				continue // continuation
			case 'n':
				c = '\n'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case '"', '\\':
				c = e
			default:
				return "", p.errorf("an unknown escape \\%c in a value", e)
			}
		}
		for ; pending > 0; pending-- {
			b.WriteByte(' ')
		}
		started = true
		b.WriteByte(c)
	}
	if quoted {
		return "", p.errorf("an unterminated quoted value")
	}
	return b.String(), nil
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isAlnum(c byte) bool { return isAlpha(c) || c >= '0' && c <= '9' }

// configReview judges the config files of one repository.
type configReview struct {
	g       *guard
	reasons *[]string
}

func (r configReview) add(s string) { *r.reasons = append(*r.reasons, s) }

// file reviews one config file and the files it includes. A missing
// top-level config is no configuration; a missing include is reviewed as
// the race it invites (anyone who can create it changes what git runs).
func (r configReview) file(name string, depth int, top bool) {
	if depth > maxGitIncludes {
		r.add("git configuration includes more than " + fmt.Sprint(maxGitIncludes) + " levels deep: " + name)
		return
	}
	data, err := r.g.files.ReadFile(name, maxGitConfigBytes)
	switch {
	case top && errors.Is(err, fs.ErrNotExist):
		return
	case err != nil:
		r.add("git configuration " + name + " cannot be reviewed: " + err.Error())
		return
	}
	entries, err := parseGitConfig(string(data))
	if err != nil {
		r.add("git configuration " + name + " cannot be read: " + err.Error())
		return
	}
	for _, e := range entries {
		switch {
		case e.key == "path" && (e.section == "include" && e.subsection == "" || e.section == "includeif"):
			r.include(name, e, depth)
		case !safeGitKey(e):
			r.add(fmt.Sprintf("git configuration %s sets %s (line %d), which is not known to be harmless: it may make git run a program", name, e.name(), e.line))
		}
	}
}

// include follows include.path and includeIf.<cond>.path, whatever the
// condition (reviewing a file git might skip only costs a prompt).
// Relative paths are relative to the including file; ~ would be the
// command's HOME, which the guard does not see.
func (r configReview) include(from string, e configEntry, depth int) {
	p := e.value
	switch {
	case p == "":
		return // an empty path includes nothing
	case strings.HasPrefix(p, "~"):
		r.add(fmt.Sprintf("git configuration %s includes %s (line %d), below a home directory the guard does not review", from, p, e.line))
		return
	case !path.IsAbs(p):
		p = path.Join(path.Dir(from), p)
	}
	resolved, _, err := r.g.resolve(p)
	if err != nil {
		r.add("git configuration " + from + " includes " + e.value + ", which cannot be followed: " + err.Error())
		return
	}
	r.file(resolved, depth+1, false)
}

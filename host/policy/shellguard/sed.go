package shellguard

import (
	"strconv"
	"strings"
)

// GNU sed 4: -i/--in-place edits files (its suffix attaches only), -f
// reads the script from a file the guard does not read.
var sedOptions = options(gnu, `n/quiet|silent e/expression=@p f/file=!u i/in-place?!w l/line-length= E/regexp-extended r
	s/separate z/null-data|zero-terminated u/unbuffered b/binary /debug /sandbox /follow-symlinks /posix /help /version`,
	map[string]string{"in-place": "edits files in place", "file": "reads its script from a file"})

// checkSed: sed reads and prints, unless it edits in place (-i), reads
// its script from a file (-f), or its script uses a command or flag that
// executes or writes (e, w, W, r, R, s///e, s///w). Scripts are accepted
// only in a small grammar the guard fully understands.
func checkSed(g *guard, name string, args []string, _ int, f *finding) {
	p := sedOptions.parse(args)
	if p.problem != "" {
		f.prompt(High, name+": "+p.problem+"; only options known to be read-only run unasked")
		return
	}
	var scripts []string
	fromOption := false
	for _, u := range p.uses {
		switch {
		case u.opt.effect.refuses():
			fromOption = fromOption || u.opt.short == 'f'
			f.prompt(High, name+" "+u.opt.spelling()+" (given as "+strconv.Quote(u.token)+") "+u.opt.reason())
		case u.opt.effect == effPattern:
			fromOption = true
			scripts = append(scripts, u.value())
		}
	}
	files := p.operands
	if !fromOption && len(files) > 0 {
		scripts, files = append(scripts, files[0]), files[1:]
	}
	if len(scripts) == 0 && !fromOption {
		f.prompt(High, "sed without a script")
	}
	for _, s := range scripts {
		if !sedScriptSafe(s) {
			f.prompt(High, "sed script may execute or write files (e, w, r, s///e) or uses commands the guard does not read")
			break
		}
	}
	for _, p := range files {
		g.readPath(p, f)
	}
}

// sedScriptSafe accepts scripts made of addresses and the commands
// p d q Q = l n N P D h H g G x z { } and s/// or y/// with the flags
// g p i I m M and a number. Anything else (including comments, labels and
// text commands) is refused, so a misreading can only refuse.
func sedScriptSafe(s string) bool {
	i := 0
	skip := func(set string) {
		for i < len(s) && strings.IndexByte(set, s[i]) >= 0 {
			i++
		}
	}
	for {
		skip(" \t\n;")
		if i >= len(s) {
			return true
		}
		var ok bool
		if i, ok = sedAddress(s, i); !ok {
			return false
		}
		if i < len(s) && s[i] == ',' {
			i++
			if i < len(s) && (s[i] == '+' || s[i] == '~') {
				i++
				if i >= len(s) || !isDigit(s[i]) {
					return false
				}
				skip("0123456789")
			} else if i, ok = sedAddress(s, i); !ok {
				return false
			}
		}
		skip(" \t")
		if i < len(s) && s[i] == '!' {
			i++
			skip(" \t")
		}
		if i >= len(s) {
			return false
		}
		c := s[i]
		i++
		switch c {
		case '{':
			continue // a block's first command follows at once
		case 'p', 'd', 'D', 'n', 'N', 'P', 'h', 'H', 'g', 'G', 'x', 'z', '=', '}':
		case 'q', 'Q', 'l':
			skip(" \t")
			skip("0123456789")
		case 's', 'y':
			if i, ok = sedSubst(s, i, c == 's'); !ok {
				return false
			}
		default:
			return false
		}
		skip(" \t")
		if i < len(s) && s[i] != ';' && s[i] != '\n' && s[i] != '}' {
			return false
		}
	}
}

// sedAddress reads an optional address: a line number (first~step), $,
// or a /regex/ or \cregexc with optional I or M.
func sedAddress(s string, i int) (int, bool) {
	if i >= len(s) {
		return i, true
	}
	switch c := s[i]; {
	case isDigit(c):
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i < len(s) && s[i] == '~' {
			i++
			for i < len(s) && isDigit(s[i]) {
				i++
			}
		}
		return i, true
	case c == '$':
		return i + 1, true
	case c == '/' || c == '\\':
		delim := byte('/')
		if c == '\\' {
			if i+1 >= len(s) || s[i+1] == '\n' || s[i+1] == '\\' {
				return i, false
			}
			delim = s[i+1]
			i++
		}
		var ok bool
		if i, ok = sedRegex(s, i+1, delim); !ok {
			return i, false
		}
		for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
			i++
		}
		return i, true
	}
	return i, true
}

// sedRegex reads up to and past the closing delimiter, honouring escapes
// and bracket expressions.
func sedRegex(s string, i int, delim byte) (int, bool) {
	for i < len(s) {
		switch c := s[i]; {
		case c == '\\':
			i += 2
		case c == '[':
			i++
			if i < len(s) && s[i] == '^' {
				i++
			}
			if i < len(s) && s[i] == ']' {
				i++
			}
			for i < len(s) && s[i] != ']' {
				i++
			}
			i++
		case c == '\n':
			return i, false
		case c == delim:
			return i + 1, true
		default:
			i++
		}
	}
	return i, false
}

// sedSubst reads the rest of s/re/repl/flags or y/src/dst/ after the
// command letter.
func sedSubst(s string, i int, subst bool) (int, bool) {
	if i >= len(s) || s[i] == '\\' || s[i] == '\n' || s[i] == ' ' {
		return i, false
	}
	delim := s[i]
	var ok bool
	if i, ok = sedRegex(s, i+1, delim); !ok {
		return i, false
	}
	// The replacement: escapes only, no bracket expressions.
	for {
		if i >= len(s) || s[i] == '\n' && !subst {
			return i, false
		}
		if s[i] == '\\' {
			i += 2
			continue
		}
		if s[i] == delim {
			i++
			break
		}
		i++
	}
	if !subst {
		return i, true
	}
	for i < len(s) && strings.IndexByte("gpiImM0123456789", s[i]) >= 0 {
		i++
	}
	return i, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

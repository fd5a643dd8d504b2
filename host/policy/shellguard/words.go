package shellguard

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// word is one shell word as the guard reads it.
type word struct {
	// text is the word's value when literal; otherwise a best-effort
	// rendering with quotes removed and expansions shown as written
	// ($HOME, ~, *), good enough to spot destructive targets.
	text string
	// literal is true when the shell will pass text unchanged: no
	// expansion, substitution, glob, brace or tilde.
	literal bool
	// why names the first construct that made the word non-literal.
	why string
}

// readWord evaluates w. Backslash escapes and quotes are resolved as bash
// resolves them, so that `\rm`, `r”m` and `"r"m` all read as rm.
func readWord(w *syntax.Word) word {
	// Fast path: one plain unquoted literal or one single-quoted string,
	// which most words are.
	if len(w.Parts) == 1 {
		switch p := w.Parts[0].(type) {
		case *syntax.Lit:
			if !strings.ContainsAny(p.Value, "\\*?[~{") {
				return word{text: p.Value, literal: true}
			}
		case *syntax.SglQuoted:
			if !p.Dollar {
				return word{text: p.Value, literal: true}
			}
		}
	}
	var (
		b     strings.Builder
		brace strings.Builder // unquoted braces kept, quoted ones masked
		out   = word{literal: true}
		// bracket: an unquoted [ was seen; an unquoted ] after it, in
		// this part or a later one, makes a glob (.en[v''] is .en[v]).
		bracket bool
	)
	notLiteral := func(why string) {
		if out.literal {
			out.literal, out.why = false, why
		}
	}
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			readUnquoted(p.Value, i == 0, &bracket, &b, &brace, notLiteral)
		case *syntax.SglQuoted:
			v := p.Value
			if p.Dollar {
				notLiteral("ANSI-C quoting $'...'")
				v = decodeANSIC(v)
			}
			b.WriteString(v)
			brace.WriteString(maskBraces(v))
		case *syntax.DblQuoted:
			for _, dp := range p.Parts {
				if l, ok := dp.(*syntax.Lit); ok {
					v := unescapeDouble(l.Value)
					b.WriteString(v)
					brace.WriteString(maskBraces(v))
					continue
				}
				s := readExpansion(dp, notLiteral)
				b.WriteString(s)
				brace.WriteString(maskBraces(s))
			}
		default:
			s := readExpansion(part, notLiteral)
			b.WriteString(s)
			brace.WriteString(maskBraces(s))
		}
	}
	if out.literal && hasBraceExpansion(brace.String()) {
		notLiteral("brace expansion")
	}
	out.text = b.String()
	return out
}

// readExpansion renders an expansion part and marks the word non-literal.
func readExpansion(part syntax.WordPart, notLiteral func(string)) string {
	switch p := part.(type) {
	case *syntax.ParamExp:
		notLiteral("parameter expansion")
		if p.Param != nil && (p.Short || (!p.Excl && !p.Length && p.Index == nil && p.Slice == nil && p.Repl == nil && p.Exp == nil)) {
			return "$" + p.Param.Value
		}
		return renderParamOp(p)
	case *syntax.CmdSubst:
		if p.Backquotes {
			notLiteral("command substitution `...`")
		} else {
			notLiteral("command substitution $(...)")
		}
		return renderCmdSubst(p)
	case *syntax.ArithmExp:
		if p.Bracket {
			notLiteral("arithmetic expansion $[...]")
		} else {
			notLiteral("arithmetic expansion $((...))")
		}
		return "$((...))"
	case *syntax.ProcSubst:
		notLiteral("process substitution")
		return "<(...)"
	case *syntax.ExtGlob:
		notLiteral("extended glob")
		return "*"
	case *syntax.BraceExp:
		notLiteral("brace expansion")
		return "{...}"
	}
	notLiteral("an unrecognised shell construct")
	return "?"
}

// readUnquoted resolves an unquoted literal: backslash escapes, and the
// characters that make the shell expand (globs, tilde). bracket carries an
// unquoted [ across the word's parts: bash joins the parts before it
// matches, so only an unquoted ] anywhere after it closes the bracket
// (a quoted or escaped one does not).
func readUnquoted(v string, first bool, bracket *bool, b, brace *strings.Builder, notLiteral func(string)) {
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch c {
		case '\\':
			if i+1 < len(v) {
				i++
				if v[i] != '\n' { // backslash-newline is a line continuation
					b.WriteByte(v[i])
					brace.WriteString(maskBraces(v[i : i+1]))
				}
			}
			continue
		case '*', '?':
			notLiteral("unquoted glob")
		case '[':
			*bracket = true
		case ']':
			if *bracket {
				notLiteral("unquoted glob")
			}
		case '~':
			if (i == 0 && first) || (i > 0 && (v[i-1] == '=' || v[i-1] == ':')) {
				notLiteral("tilde expansion")
			}
		}
		b.WriteByte(c)
		brace.WriteByte(c)
	}
}

// unescapeDouble resolves the backslash escapes bash honours inside double
// quotes; any other backslash stays.
func unescapeDouble(v string) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			switch v[i+1] {
			case '$', '`', '"', '\\':
				b.WriteByte(v[i+1])
				i++
				continue
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

func maskBraces(s string) string {
	if !strings.ContainsAny(s, "{}") {
		return s
	}
	return strings.NewReplacer("{", "_", "}", "_").Replace(s)
}

// hasBraceExpansion reports an unquoted {...} holding a comma or "..",
// which bash expands into several words. One pass with a stack of open
// braces, each remembering whether it has seen a separator.
func hasBraceExpansion(s string) bool {
	var open []bool
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			open = append(open, false)
		case '}':
			if n := len(open); n > 0 {
				if open[n-1] {
					return true
				}
				open = open[:n-1]
			}
		case ',':
			if n := len(open); n > 0 {
				open[n-1] = true
			}
		case '.':
			if n := len(open); n > 0 && i+1 < len(s) && s[i+1] == '.' {
				open[n-1] = true
			}
		}
	}
	return false
}

// decodeANSIC decodes the escapes of $'...' (for spotting destructive
// payloads only; such a word is never literal).
func decodeANSIC(v string) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] != '\\' || i+1 >= len(v) {
			b.WriteByte(v[i])
			continue
		}
		i++
		switch c := v[i]; c {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case 'x':
			j := i + 1
			for j < len(v) && j < i+3 && isHex(v[j]) {
				j++
			}
			if n, err := strconv.ParseUint(v[i+1:j], 16, 8); err == nil {
				b.WriteByte(byte(n))
				i = j - 1
			} else {
				b.WriteString(`\x`)
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(v) && j < i+3 && v[j] >= '0' && v[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint(v[i:j], 8, 16)
			b.WriteByte(byte(n))
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

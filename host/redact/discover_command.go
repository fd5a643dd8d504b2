package redact

import (
	"path"
	"strings"
)

// optionKind says what an option's value is.
type optionKind int

const (
	optSecret   optionKind = iota + 1 // the value is the secret
	optUserPass                       // the value is user:password
)

// shortOptions are the single-letter options that take a secret, per
// program: -p is a password for mysql but a port for ssh, so it needs the
// program's name. Values may be attached (-pS3cret) or separate (-p S3cret).
var shortOptions = map[string]map[byte]optionKind{
	"mysql": {'p': optSecret}, "mysqldump": {'p': optSecret}, "mysqladmin": {'p': optSecret},
	"mysqlimport": {'p': optSecret}, "mysqlshow": {'p': optSecret}, "mysqlcheck": {'p': optSecret},
	"mysqlbinlog": {'p': optSecret}, "mysqlsh": {'p': optSecret}, "mariadb": {'p': optSecret},
	"mariadb-dump": {'p': optSecret}, "mariadb-admin": {'p': optSecret},
	"sshpass":   {'p': optSecret},
	"redis-cli": {'a': optSecret},
	"curl":      {'u': optUserPass, 'U': optUserPass},
}

// longOptions are long options whose names are not secret words but whose
// values hold credentials, per program.
var longOptions = map[string]map[string]optionKind{
	"curl": {"user": optUserPass, "proxy-user": optUserPass},
}

// command finds secret options in a command line.
func (c *collector) command(source, s string) {
	c.options(source, tokenize(s))
}

// argv finds secret options in a command given as an argument vector.
func (c *collector) argv(source string, argv []string) {
	toks := make([]token, len(argv))
	for i, a := range argv {
		toks[i] = token{text: a}
	}
	c.options(source, toks)
}

// options walks command words. The program is the last word seen that names
// a known program (so "sudo mysql -pX" and "env X=1 mysql -pX" work); a
// separator forgets it.
func (c *collector) options(source string, toks []token) {
	prog := ""
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.sep {
			prog = ""
			continue
		}
		// next is the following word if it can be an option's value.
		next := func() (string, bool) {
			if i+1 < len(toks) && !toks[i+1].sep && !strings.HasPrefix(toks[i+1].text, "-") {
				i++
				return toks[i].text, true
			}
			return "", false
		}
		w := t.text
		switch {
		case strings.HasPrefix(w, "--") && len(w) > 2:
			name, value, hasValue := strings.Cut(w[2:], "=")
			kind := longOptions[prog][name]
			if kind == 0 && isSecretName(name) {
				kind = optSecret
			}
			if kind == 0 {
				continue
			}
			if !hasValue {
				value, hasValue = next()
			}
			if hasValue {
				c.option(source+":option."+name, "option."+name, value, kind)
			}
		case strings.HasPrefix(w, "-") && len(w) > 1:
			kind := shortOptions[prog][w[1]]
			if kind == 0 {
				continue
			}
			value, hasValue := w[2:], len(w) > 2
			if !hasValue {
				value, hasValue = next()
			}
			if hasValue {
				c.option(source+":option."+w[:2], "option."+w[1:2], value, kind)
			}
		default:
			if _, ok := shortOptions[path.Base(w)]; ok {
				prog = path.Base(w)
			} else if _, ok := longOptions[path.Base(w)]; ok {
				prog = path.Base(w)
			}
		}
	}
}

func (c *collector) option(source, target, value string, kind optionKind) {
	if kind == optUserPass {
		c.addUserPass(value, source, target)
		return
	}
	c.add(value, source, target)
}

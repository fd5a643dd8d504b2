package shellguard

import "strings"

// GNU grep 3: every option of grep --help, plus the digits (-5 is
// --context=5) and the obsolete -y (-i) and -u.
var grepOptions = options(gnu, digits+` E/extended-regexp F/fixed-strings|fixed-regexp G/basic-regexp P/perl-regexp e/regexp=@p
	f/file=@f i/ignore-case y /no-ignore-case w/word-regexp x/line-regexp z/null-data s/no-messages v/invert-match
	V/version /help m/max-count= b/byte-offset n/line-number /line-buffered H/with-filename h/no-filename /label=
	o/only-matching q/quiet|silent /binary-files= a/text I d/directories= D/devices= r/recursive@R
	R/dereference-recursive@R /include= /exclude= /exclude-from=@r /exclude-dir= L/files-without-match
	l/files-with-matches c/count T/initial-tab Z/null A/after-context= B/before-context= C/context= /color|colour?
	/group-separator= /no-group-separator U/binary u/unix-byte-offsets X=`, nil)

// ripgrep 14 (lexopt): long options by their exact name only, values
// attached (--glob=x, -gx) or separate. --pre and --hostname-bin run a
// program; -z/--search-zip runs decompression programs.
var rgOptions = options(grammar{permute: true}, `A/after-context= B/before-context= C/context= /context-separator=
	/no-context-separator b/byte-offset /no-byte-offset c/count /count-matches /column /no-column /color= /colors=
	/crlf /no-crlf /debug /trace /dfa-size-limit= E/encoding= /no-encoding /engine= e/regexp=@p f/file=@f /files
	l/files-with-matches /files-without-match F/fixed-strings /no-fixed-strings L/follow /no-follow g/glob=
	/glob-case-insensitive /no-glob-case-insensitive /heading /no-heading . /hidden /no-hidden /iglob=
	i/ignore-case /ignore-file=@r /ignore-file-case-insensitive /no-ignore-file-case-insensitive /include-zero
	/no-include-zero v/invert-match /no-invert-match /json /no-json /line-buffered /no-line-buffered
	n/line-number N/no-line-number x/line-regexp M/max-columns= /max-columns-preview /no-max-columns-preview
	m/max-count= d/max-depth|maxdepth= /max-filesize= /mmap /no-mmap U/multiline /no-multiline /multiline-dotall
	/no-multiline-dotall /no-config /no-ignore /ignore /no-ignore-dot /ignore-dot /no-ignore-exclude /ignore-exclude
	/no-ignore-files /ignore-files /no-ignore-global /ignore-global /no-ignore-messages /ignore-messages
	/no-ignore-parent /ignore-parent /no-ignore-vcs /ignore-vcs /no-messages /messages /no-require-git /require-git
	/no-unicode /unicode 0/null /null-data /one-file-system /no-one-file-system o/only-matching /path-separator=
	/passthru|passthrough P/pcre2 /no-pcre2 /pcre2-version /pcre2-unicode /no-pcre2-unicode p/pretty q/quiet /regex-size-limit= r/replace=
	z/search-zip!x /no-search-zip S/smart-case /no-smart-case s/case-sensitive /sort= /sortr= /stats /no-stats
	/stop-on-nonmatch a/text /no-text j/threads= /trim /no-trim t/type= T/type-not= /type-add= /type-clear= /type-list
	u/unrestricted /vimgrep H/with-filename I/no-filename w/word-regexp /auto-hybrid-regex /no-auto-hybrid-regex
	/binary /no-binary /block-buffered /no-block-buffered /field-context-separator= /field-match-separator=
	/hyperlink-format= /generate= /pre=!x /no-pre /pre-glob= /hostname-bin=!x h/help V/version`,
	map[string]string{"search-zip": "runs decompression programs"})

// grepPost: -d/--directories=recurse reads trees too. grep accepts any
// unambiguous abbreviation of the action; only a prefix of read or skip
// that is no prefix of recurse is taken for what it says.
func grepPost(_ *guard, _ string, r *argsRead, _ *finding) {
	for _, u := range r.uses {
		if u.opt.short == 'd' {
			v := u.value()
			readOrSkip := v != "" && (strings.HasPrefix("read", v) || strings.HasPrefix("skip", v))
			if !readOrSkip || strings.HasPrefix("recurse", v) {
				r.recursive = true
			}
		}
	}
}

// rgPost: ripgrep searches trees, the current directory when no path is
// given.
func rgPost(_ *guard, _ string, r *argsRead, _ *finding) {
	r.recursive = true
	// By default rg skips hidden entries and follows no symlink below its
	// operands; --hidden (-.), -uu and --follow (-L) read them too. Its
	// ignore files only read less, but for their "!" lines and globs and
	// types (-g, -t), which whitelist hidden entries too (paths.go).
	r.tree = treeMode{skipHidden: true, noFollow: true}
	unrestricted := 0
	for _, u := range r.uses {
		switch {
		case u.opt.short == 'u':
			unrestricted++
		case u.opt.short == '.' || u.opt.short == 'L' || (len(u.opt.longs) > 0 && u.opt.longs[0] == "hidden"):
			r.tree = treeMode{}
		}
	}
	if unrestricted >= 2 {
		r.tree = treeMode{}
	}
	for _, u := range r.uses {
		// A glob or a file type is a whitelist, and a whitelisted entry
		// is read though hidden (rg -g '*' TOKEN read .env).
		if u.opt.short == 'g' || u.opt.short == 't' || containsAny(u.opt.longs, "glob", "iglob", "type", "type-add") {
			r.tree.skipHidden = false
		}
	}
	for _, u := range r.uses {
		// --files and --type-list take no pattern: every operand is a path.
		if len(u.opt.longs) > 0 && (u.opt.longs[0] == "files" || u.opt.longs[0] == "type-list") {
			r.patternGiven = true
		}
	}
}

// containsAny reports whether list holds one of names.
func containsAny(list []string, names ...string) bool {
	for _, n := range names {
		if containsString(list, n) {
			return true
		}
	}
	return false
}

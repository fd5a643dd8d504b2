package shellguard

import (
	"regexp"
	"strings"
)

// file 5: -C compiles a magic file (writes NAME.mgc), -p resets access
// times, -z and -Z run decompression programs, -S turns off file's own
// sandbox.
var fileOptions = options(gnu, `/apple b/brief C/compile!w c/checking-printout d/debug e/exclude= /exclude-quiet=
	/extension f/files-from=@l F/separator= h/no-dereference i/mime /mime-type /mime-encoding k/keep-going l/list
	L/dereference m/magic-file=@r N/no-pad n/no-buffer 0/print0 p/preserve-date!u P/parameter= r/raw
	s/special-files S/no-sandbox!u z/uncompress!x Z/uncompress-noreport!x v/version /help`,
	map[string]string{
		"compile":       "writes a compiled magic file",
		"preserve-date": "resets the access times of the files it reads",
		"no-sandbox":    "turns off file's own sandbox",
		"uncompress":    "runs decompression programs",
	})

// filePost: -m names a colon-separated list of magic files.
func filePost(g *guard, _ string, r *argsRead, f *finding) {
	for _, u := range r.uses {
		if u.opt.short == 'm' {
			for p := range strings.SplitSeq(u.value(), ":") {
				g.readPath(p, f)
			}
		}
	}
}

// jq 1.6/1.7: long options by exact name, never --name=value; short
// flags cluster. -L (module search path) is refused: modules are jq code
// the guard does not read; so is a program that imports or includes.
var jqOptions = options(grammar{permute: true, exactLongWords: true}, `c/compact-output n/null-input s/slurp
	r/raw-output /raw-output0 j/join-output a/ascii-output S/sort-keys C/color-output M/monochrome-output
	R/raw-input e/exit-status f/from-file /tab /indent= /seq /stream /stream-errors /unbuffered b/binary
	/arg=2 /argjson=2 /slurpfile=2@r /rawfile=2@r /argfile=2@r /args /jsonargs L/library-path=!u
	/run-tests!u /debug-dump-disasm /debug-trace h/help V/version`,
	map[string]string{
		"library-path": "adds a module search path; modules are code the guard does not read",
		"run-tests":    "runs a file of jq tests",
	})

// jqModuleDirective finds import or include as a word of the program
// (not .import, a field, nor $import); in a string it only costs a prompt.
var jqModuleDirective = regexp.MustCompile(`(^|[^.$\w])(import|include)\b`)

// jqPost: with -f the first operand is the program file; otherwise it is
// the program, which must not load modules.
func jqPost(g *guard, name string, r *argsRead, f *finding) {
	for _, u := range r.uses {
		if u.opt.short == 'f' {
			r.patternGiven = true // the program file is an operand read
			// Its text is not the guard's to read: an import or include
			// there reads modules and JSON from any directory
			// ({search: "/"}), outside the workspace.
			f.prompt(Medium, name+" "+u.token+" runs a program file whose imports the guard does not read")
			return
		}
	}
	if len(r.operands) > 0 && jqModuleDirective.MatchString(r.operands[0]) {
		f.prompt(High, name+" program loads modules (import/include) that the guard does not read")
	}
}

// tree 2: long options by exact name; a short option that takes an
// argument takes the next word. -o writes the listing to a file, -R
// writes 00Tree.html into every directory, and --fromfile reads the
// listing from its operands.
var treeOptions = options(grammar{permute: true, shortNext: true}, `a d l f x L= R!w P= I= /gitignore /gitfile=@r
	/ignore-case /matchdirs /metafirst /prune /info /infofile=@r /noreport /charset= /filelimit= /timefmt= o=!w q N
	Q p u g s h /si /du D F /inodes /device v t c U r /dirsfirst /filesfirst /sort= i A S n C X J H= T= /nolinks
	/hintro=@r /houtro=@r /fromfile@l /fromtabfile@l /fflinks /help /version`,
	map[string]string{"R": "writes 00Tree.html into every directory"})

// man-db (argp): the pager, browser, viewer, preprocessors and
// configuration are programs or code; -l, -M and an operand with a slash
// format files the guard does not read; -c and -u write caches.
var manOptions = options(gnu, `C/config-file=!u d/debug D/default /warnings? f/whatis k/apropos K/global-apropos
	l/local-file!u w/where|path|location W/where-cat|location-cat c/catman!w R/recode= L/locale= m/systems=
	M/manpath=!u S/sections= s= e/extension= i/ignore-case I/match-case /regex /wildcard /names-only a/all
	u/update!w /no-subpages P/pager=!x r/prompt= 7/ascii E/encoding= /no-hyphenation|nh /no-justification|nj
	p/preprocessor=!x t/troff T/troff-device? H/html?!x X/gxditview?!x Z/ditroff ?/help /usage V/version`,
	map[string]string{
		"config-file": "reads a configuration that names programs",
		"local-file":  "formats local files the guard does not read",
		"manpath":     "formats pages from directories the guard does not read",
	})

func manPost(_ *guard, name string, r *argsRead, f *finding) {
	// man-db runs formatters and helpers (locale, apropos, groff) and,
	// where /var/cache/man is writable, writes its cat-page cache: the
	// strace oracle sees both, so no spelling of man runs unasked.
	f.prompt(Medium, name+" runs formatting programs and may write its page cache")
	for _, op := range r.operands {
		if strings.ContainsRune(op, '/') {
			f.prompt(High, name+" "+op+" formats a local file")
		}
	}
	r.operands = nil // page names, not paths
}

// printf (the bash builtin): -v assigns the output to a shell variable,
// which later commands see.
var printfOptions = options(grammar{}, `v=!u`, map[string]string{"v": "assigns its output to a shell variable, which later commands see"})

// datePost: an operand other than +FORMAT sets the clock (date MMDDhhmm).
func datePost(_ *guard, name string, r *argsRead, f *finding) {
	for _, op := range r.operands {
		if !strings.HasPrefix(op, "+") {
			f.prompt(High, name+" "+op+" sets the system time")
		}
	}
	r.operands = nil
}

// hostnamePost: an operand sets the host name (or, with -y, the NIS
// domain).
func hostnamePost(_ *guard, name string, r *argsRead, f *finding) {
	for _, op := range r.operands {
		f.prompt(High, name+" "+op+" sets the host name")
	}
	r.operands = nil
}

// xxd's own parser: an option is a word starting with - (or --) whose
// first letter names it (-a, -autoskip and -axyz are all -a); a value
// letter takes the rest of the word, or the next word when the rest is
// empty or its long spelling (-c8, -c 8, -cols 8). Options end at the
// first operand or --. The second operand is the output file.
var xxdValues = map[byte][]string{'c': {"ols"}, 'g': {"roupsize"}, 'l': {"en"}, 'n': {"ame"}, 'o': {"ffset"}, 's': {"kip", "eek"}}

const xxdFlags = "abCdEehipruv"

func checkXxd(g *guard, name string, args []string, _ int, f *finding) {
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			i++
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		pp := a
		if strings.HasPrefix(a, "--") {
			pp = a[1:]
		}
		c, rest := pp[1], pp[2:]
		if long, ok := xxdValues[c]; ok {
			if rest == "" || xxdLongSpelling(rest, long) {
				i++
			}
			continue
		}
		if strings.IndexByte(xxdFlags, c) < 0 {
			f.prompt(High, name+": unknown option "+a+"; only options known to be read-only run unasked")
			return
		}
	}
	ops := args[min(i, len(args)):]
	if len(ops) > 0 {
		g.readPath(ops[0], f)
	}
	if len(ops) > 1 {
		f.prompt(High, name+" writes its operand "+ops[1])
	}
}

func xxdLongSpelling(rest string, long []string) bool {
	for _, l := range long {
		if strings.HasPrefix(rest, l) {
			return true
		}
	}
	return false
}

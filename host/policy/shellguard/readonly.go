package shellguard

import (
	"regexp"
	"strconv"
	"strings"
)

// The read-only commands form a closed world: a command runs unasked only
// when every option it is given is in its program's table (options_*.go)
// with a read-only effect, read as the program reads it (optparse.go),
// and every operand is judged for what it is: a file read, a tree read,
// a pattern, a value, or an output file (a write).

// operandKind says what a read-only command's operands are.
type operandKind int

const (
	operandsPaths operandKind = iota
	// operands are names or values, never opened
	operandsNone
	// the first operand is a pattern or program text, the rest paths,
	// unless an option gave the pattern (-e, -f)
	operandsPatternThenPaths
	// the first operand is read, a second one is the output file (uniq)
	operandsInOut
	// the arguments are text (echo, test): nothing is an option that
	// reads or writes
	operandsText
)

// danger is an option that makes a command execute or write (git.go).
type danger struct{ opt, why string }

const (
	execs  = "can run another program"
	writes = "writes a file"
)

// spec is one known read-only command.
type spec struct {
	opts     *optTable
	operands operandKind
	// obsolete matches a first argument in a historical form that the
	// program still takes there only (head -20, tail +5).
	obsolete *regexp.Regexp
	// post judges what is particular to the program, after the options
	// were read.
	post func(g *guard, name string, r *argsRead, f *finding)
	// custom replaces the generic check.
	custom func(g *guard, name string, args []string, depth int, f *finding)
	// responseFiles: an argument @FILE is replaced by the arguments the
	// file holds, before options are read (binutils' libiberty).
	responseFiles bool
}

// argsRead is a parsed argument vector with what its options said about
// the operands.
type argsRead struct {
	parsedArgs
	// patternGiven: an option gave the pattern, so every operand is a path.
	patternGiven bool
	// recursive: path operands are trees.
	recursive bool
	// tree says what a recursive walk skips (ripgrep's defaults); the
	// zero value reads everything.
	tree treeMode
}

func (s spec) check(g *guard, name string, args []string, depth int, f *finding) {
	if s.custom != nil {
		s.custom(g, name, args, depth, f)
		return
	}
	if s.operands == operandsText {
		return
	}
	if s.obsolete != nil && len(args) > 0 && s.obsolete.MatchString(args[0]) {
		args = args[1:]
	}
	if s.responseFiles {
		for _, a := range args {
			if strings.HasPrefix(a, "@") {
				f.prompt(High, name+" reads more arguments from the file "+a[1:]+", which the guard cannot see")
				return
			}
		}
	}
	r := argsRead{parsedArgs: s.opts.parse(args)}
	if r.problem != "" {
		f.prompt(High, name+": "+r.problem+"; only options known to be read-only run unasked")
		return
	}
	for _, u := range r.uses {
		g.judgeOption(name, u, &r, f)
	}
	if s.post != nil {
		s.post(g, name, &r, f)
	}
	ops := r.operands
	switch s.operands {
	case operandsNone:
		return
	case operandsPatternThenPaths:
		if !r.patternGiven && len(ops) > 0 {
			ops = ops[1:]
		}
	case operandsInOut:
		if len(ops) > 1 {
			for _, out := range ops[1:] {
				f.prompt(High, name+" writes its operand "+out)
			}
			ops = ops[:1]
		}
	}
	if r.recursive && len(ops) == 0 && s.operands == operandsPatternThenPaths {
		ops = []string{"."} // grep -r and rg search the working directory
	}
	for _, p := range ops {
		if r.recursive {
			g.readTreeWith(p, r.tree, f)
		} else {
			g.readPath(p, f)
		}
	}
}

// judgeOption judges one option found in the arguments.
func (g *guard) judgeOption(name string, u optUse, r *argsRead, f *finding) {
	o := u.opt
	if o.effect.refuses() {
		f.prompt(High, name+" "+o.spelling()+" (given as "+strconv.Quote(u.token)+") "+o.reason())
		return
	}
	switch o.effect {
	case effReadFile:
		g.readOptionFile(u, f)
	case effFileList:
		if len(u.values) == 0 {
			f.prompt(Medium, name+" "+o.spelling()+" reads the files that its operands list, which the guard cannot see")
			return
		}
		f.prompt(Medium, name+" "+o.spelling()+" reads the files that "+u.value()+" lists, which the guard cannot see")
		g.readOptionFile(u, f)
	case effPattern:
		r.patternGiven = true
	case effPatternFile:
		r.patternGiven = true
		g.readOptionFile(u, f)
	case effRecurse:
		r.recursive = true
	}
}

// readOptionFile judges the file an option names. A value attached with
// "=" to a short option (rg -f=x) is judged both ways.
func (g *guard) readOptionFile(u optUse, f *finding) {
	if len(u.values) == 0 {
		return
	}
	v := u.value()
	g.readPath(v, f)
	if len(v) > 1 && v[0] == '=' {
		g.readPath(v[1:], f)
	}
}

var (
	plain        = func(t *optTable) spec { return spec{opts: t} }
	names        = func(t *optTable) spec { return spec{opts: t, operands: operandsNone} }
	textArgs     = spec{operands: operandsText}
	headObsolete = regexp.MustCompile(`^-[0-9]+[bkm]?[cl]?[qvz]*$`)
	tailObsolete = regexp.MustCompile(`^(-[0-9]+|\+[0-9]*)[bcl]?f?$`)
)

// readOnly lists the commands that only read, each with its option table.
// Anything not here needs approval. (Filled in init: some checks judge
// inner commands, which consults this table.)
var readOnly map[string]spec

func init() { readOnly = readOnlyTable() }

func readOnlyTable() map[string]spec {
	sum := plain(sumOptions)
	grep := spec{opts: grepOptions, operands: operandsPatternThenPaths, post: grepPost}
	return map[string]spec{
		"ls":       {opts: lsOptions, post: lsPost},
		"dir":      {opts: lsOptions, post: lsPost},
		"vdir":     {opts: lsOptions, post: lsPost},
		"cat":      plain(catOptions),
		"tac":      plain(tacOptions),
		"nl":       plain(nlOptions),
		"head":     {opts: headOptions, obsolete: headObsolete},
		"tail":     {opts: tailOptions, obsolete: tailObsolete},
		"wc":       plain(wcOptions),
		"grep":     grep,
		"egrep":    grep,
		"fgrep":    grep,
		"rg":       {opts: rgOptions, operands: operandsPatternThenPaths, post: rgPost},
		"find":     {custom: checkFind},
		"sed":      {custom: checkSed},
		"sort":     plain(sortOptions),
		"uniq":     {opts: uniqOptions, operands: operandsInOut},
		"diff":     plain(diffOptions),
		"cmp":      plain(cmpOptions),
		"comm":     plain(commOptions),
		"join":     plain(joinOptions),
		"paste":    plain(pasteOptions),
		"cut":      plain(cutOptions),
		"tr":       names(trOptions),
		"column":   plain(columnOptions),
		"fold":     plain(foldOptions),
		"fmt":      plain(fmtOptions),
		"expand":   plain(expandOptions),
		"unexpand": plain(unexpandOptions),
		"od":       plain(odOptions),
		"hexdump":  plain(hexdumpOptions),
		"xxd":      {custom: checkXxd},
		"strings":  {opts: stringsOptions, responseFiles: true},
		"md5sum":   sum, "sha1sum": sum, "sha224sum": sum, "sha256sum": sum, "sha384sum": sum, "sha512sum": sum, "b2sum": sum,
		"cksum":    plain(cksumOptions),
		"sum":      plain(bsdSumOptions),
		"base64":   plain(baseOptions),
		"base32":   plain(baseOptions),
		"echo":     textArgs,
		"printf":   names(printfOptions),
		"pwd":      names(pwdOptions),
		"true":     textArgs,
		"false":    textArgs,
		":":        textArgs,
		"test":     textArgs,
		"[":        textArgs,
		"which":    names(whichOptions),
		"type":     names(typeOptions),
		"whereis":  names(whereisOptions),
		"file":     {opts: fileOptions, post: filePost},
		"stat":     plain(statOptions),
		"du":       {opts: duOptions, post: duPost},
		"df":       plain(dfOptions),
		"tree":     {opts: treeOptions, post: treePost},
		"basename": names(basenameOptions),
		"dirname":  names(dirnameOptions),
		"realpath": names(realpathOptions),
		"readlink": names(readlinkOptions),
		"date":     {opts: dateOptions, post: datePost},
		"hostname": {opts: hostnameOptions, post: hostnamePost},
		"uname":    names(unameOptions),
		"whoami":   names(bareOptions),
		"id":       names(idOptions),
		"groups":   names(bareOptions),
		"nproc":    names(nprocOptions),
		"uptime":   names(uptimeOptions),
		"free":     names(freeOptions),
		"arch":     names(bareOptions),
		"tty":      names(ttyOptions),
		"locale":   names(localeOptions),
		"printenv": names(printenvOptions),
		"seq":      names(seqOptions),
		"sleep":    textArgs,
		"yes":      textArgs,
		"expr":     textArgs,
		"jq":       {opts: jqOptions, operands: operandsPatternThenPaths, post: jqPost},
		"man":      {opts: manOptions, post: manPost},
		"git":      {custom: checkGit},
		"cd":       {custom: checkCd},
		"pushd":    {custom: checkCd},
		"popd":     {custom: checkCd},
	}
}

// knownPrompts explain why some well-known commands need approval.
var knownPrompts = map[string]string{}

func init() {
	add := func(why string, names ...string) {
		for _, n := range names {
			knownPrompts[n] = why
		}
	}
	add("may run repository code, build scripts or plugins, or fetch a toolchain",
		"go", "make", "gmake", "cmake", "ninja", "meson", "bazel", "bazelisk", "buck", "pytest", "py.test", "tox", "nox", "uv", "uvx",
		"pip", "pip3", "pipx", "poetry", "pipenv", "pdm", "hatch", "npm", "npx", "pnpm", "pnpx", "yarn", "bun", "bunx", "deno",
		"cargo", "rustc", "rustup", "gradle", "gradlew", "mvn", "mvnw", "ant", "sbt", "dotnet", "mix", "rake", "bundle", "gem",
		"composer", "jest", "vitest", "mocha", "tsc", "tsx", "ts-node", "gcc", "g++", "cc", "c++", "clang", "clang++", "ld",
		"swift", "swiftc", "javac", "kotlinc", "zig", "nix", "nix-shell", "direnv", "pre-commit", "just", "task")
	add("runs code (an interpreter)",
		"python", "python2", "python3", "pypy", "pypy3", "node", "nodejs", "ruby", "perl", "php", "lua", "luajit", "Rscript", "R",
		"julia", "java", "scala", "groovy", "osascript", "pwsh", "powershell", "tclsh", "wish", "awk", "gawk", "mawk", "nawk", "bc", "dc", "ghci", "erl", "elixir", "irb")
	add("reaches the network",
		"curl", "wget", "ssh", "scp", "sftp", "rsync", "nc", "ncat", "netcat", "socat", "ftp", "telnet", "aria2c", "httpie", "http", "https", "gh", "glab", "aws", "gcloud", "az", "kubectl", "helm", "docker", "podman", "terraform", "ansible", "ping", "dig", "nslookup", "host", "traceroute")
	add("changes files",
		"rm", "rmdir", "mv", "cp", "ln", "mkdir", "touch", "chmod", "chown", "chgrp", "truncate", "tee", "install", "patch",
		"dd", "shred", "unlink", "mktemp", "tar", "zip", "unzip", "gzip", "gunzip", "bzip2", "xz", "7z", "split", "csplit", "rename", "sponge")
	add("can change the system time",
		"timedatectl", "hwclock", "ntpdate", "chronyc", "rdate", "settime")
	add("changes the system or its processes",
		"kill", "pkill", "killall", "systemctl", "service", "launchctl", "crontab", "mount", "umount", "swapon", "swapoff",
		"sysctl", "modprobe", "insmod", "rmmod", "iptables", "nft", "ip", "ifconfig", "route", "useradd", "userdel", "usermod",
		"passwd", "chpasswd", "apt", "apt-get", "dpkg", "yum", "dnf", "apk", "brew", "pacman", "snap", "flatpak", "fdisk", "parted", "mkswap", "wipefs", "sfdisk",
		"mkfs", "shutdown", "reboot", "halt", "poweroff", "init", "telinit")
}

// checkCd: a change of directory needs approval, so that later parts run
// where the approver expects.
func checkCd(g *guard, name string, args []string, _ int, f *finding) {
	f.prompt(Medium, name+" changes the working directory")
}

// used reports whether the options read include one of short (0: none)
// or the long names.
func (r *argsRead) used(short byte, longs ...string) bool {
	for _, u := range r.uses {
		if short != 0 && u.opt.short == short {
			return true
		}
		for _, l := range longs {
			if containsString(u.opt.longs, l) {
				return true
			}
		}
	}
	return false
}

// listFollowing walks the operands (the cwd when none) of a listing that
// follows the symlinks it meets in the tree.
func (g *guard) listFollowing(r *argsRead, f *finding) {
	ops := r.operands
	if len(ops) == 0 {
		ops = []string{"."}
	}
	for _, p := range ops {
		g.listTreeFollowing(p, f)
	}
}

// lsPost: ls -R -L lists the trees its links lead to.
func lsPost(g *guard, _ string, r *argsRead, f *finding) {
	if r.used('R', "recursive") && r.used('L', "dereference") {
		g.listFollowing(r, f)
	}
}

// duPost: du always walks; -L follows the links it meets.
func duPost(g *guard, _ string, r *argsRead, f *finding) {
	if r.used('L', "dereference") {
		g.listFollowing(r, f)
	}
}

// treePost: tree -l follows links to directories.
func treePost(g *guard, _ string, r *argsRead, f *finding) {
	if r.used('l') {
		g.listFollowing(r, f)
	}
}

package shellguard

import (
	"strings"
)

// operandKind says what a read-only command's operands are.
type operandKind int

const (
	operandsPaths operandKind = iota
	operandsNone
	// the first operand is a pattern or program text, the rest paths,
	// unless an option gave the pattern (-e, -f)
	operandsPatternThenPaths
)

// danger is an option that makes a read-only command execute or write.
type danger struct{ opt, why string }

// spec is one known read-only command: what would make it not read-only.
type spec struct {
	dangers []danger
	// readOpts name a file to read in an option (--files0-from, -f):
	// approval at medium, and the path is checked.
	readOpts []string
	// values are options whose value is the next argument, so that the
	// value is not taken for an operand.
	values   map[string]bool
	operands operandKind
	// patternOpts give the pattern by option (grep -e), so that the first
	// operand is a path.
	patternOpts []string
	// maxOperands > 0: one more operand is an output file.
	maxOperands int
	// custom replaces the generic check.
	custom func(g *guard, name string, args []string, depth int, f *finding)
}

func (s spec) check(g *guard, name string, args []string, depth int, f *finding) {
	if s.custom != nil {
		s.custom(g, name, args, depth, f)
		return
	}
	patternPending := s.operands == operandsPatternThenPaths && !hasFlag(args, s.patternOpts...)
	n, afterDD := 0, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if afterDD || a == "-" || !strings.HasPrefix(a, "-") {
			n++
			switch {
			case patternPending:
				patternPending = false
			case s.maxOperands > 0 && n > s.maxOperands:
				f.prompt(High, name+" writes its operand "+a)
			case s.operands != operandsNone:
				g.readPath(a, f)
			}
			continue
		}
		if a == "--" {
			afterDD = true
			continue
		}
		for _, d := range s.dangers {
			if optMatches(a, d.opt) {
				f.prompt(High, name+" "+d.opt+" "+d.why)
			}
		}
		readOpt := false
		for _, o := range s.readOpts {
			if optMatches(a, o) {
				readOpt = true
				f.prompt(Medium, name+" "+o+" reads a file named in an option")
			}
		}
		value, attached := "", false
		if strings.HasPrefix(a, "--") {
			var name string
			name, value, attached = strings.Cut(a, "=")
			if !attached && s.values[name] && i+1 < len(args) {
				i++
				value, attached = args[i], true
			}
		} else if len(a) == 2 && s.values[a] && i+1 < len(args) {
			i++
			value, attached = args[i], true
		} else if len(a) > 2 && s.values[a[:2]] {
			value, attached = a[2:], true
		}
		if readOpt && attached {
			g.readPath(value, f)
		}
	}
}

func values(names string) map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Fields(names) {
		m[n] = true
	}
	return m
}

const (
	execs  = "can run another program"
	writes = "writes a file"
)

var plain = spec{}

// checksum tools read the files a list names with -c.
var checksum = spec{readOpts: []string{"-c", "--check"}}
var noOperands = spec{operands: operandsNone}

// readOnly lists the commands that only read, with the options that
// would make them do more. Anything not here needs approval. (Filled in
// init: some checks judge inner commands, which consults this table.)
var readOnly map[string]spec

func init() { readOnly = readOnlyTable() }

func readOnlyTable() map[string]spec {
	return map[string]spec{
		"ls":       {values: values("-I --ignore -w --width -T --tabsize --hide --format --sort --time --color --block-size")},
		"dir":      {values: values("-I --ignore -w --width -T --tabsize --hide")},
		"cat":      plain,
		"tac":      {values: values("-s --separator")},
		"nl":       {values: values("-b -d -f -h -i -l -n -s -v -w")},
		"head":     {values: values("-n -c --lines --bytes")},
		"tail":     {values: values("-n -c -s --lines --bytes --pid --sleep-interval --max-unchanged-stats")},
		"wc":       {readOpts: []string{"--files0-from"}},
		"grep":     grepSpec,
		"egrep":    grepSpec,
		"fgrep":    grepSpec,
		"rg":       rgSpec,
		"find":     {custom: checkFind},
		"sed":      {custom: checkSed},
		"sort":     {dangers: []danger{{"-o", writes}, {"--output", writes}, {"--compress-program", execs}}, readOpts: []string{"--files0-from", "--random-source"}, values: values("-k --key -t --field-separator -S --buffer-size -T --temporary-directory --parallel -o --output")},
		"uniq":     {values: values("-f -s -w --skip-fields --skip-chars --check-chars"), maxOperands: 1},
		"diff":     {readOpts: []string{"-X", "--exclude-from", "--from-file", "--to-file"}, values: values("-x --exclude -X --exclude-from -I --ignore-matching-lines -F --show-function-line -L --label -C -U --context --unified --line-format --from-file --to-file")},
		"cmp":      {values: values("-i --ignore-initial -n --bytes")},
		"comm":     plain,
		"join":     {values: values("-a -e -j -o -t -v -1 -2")},
		"paste":    {values: values("-d --delimiters")},
		"cut":      {values: values("-b -c -d -f --bytes --characters --delimiter --fields --output-delimiter")},
		"tr":       noOperands,
		"column":   {values: values("-c -s -t -o -N -R -H -W")},
		"fold":     {values: values("-w --width")},
		"fmt":      {values: values("-w --width -p --prefix")},
		"expand":   {values: values("-t --tabs")},
		"unexpand": {values: values("-t --tabs")},
		"od":       {values: values("-A -j -N -S -t -w")},
		"hexdump":  {readOpts: []string{"-f"}, values: values("-e -f -n -s")},
		"xxd":      {values: values("-c -g -l -o -s -cols -len -seek"), maxOperands: 1},
		"strings":  {values: values("-n -t -e -T --bytes --radix --encoding --target")},
		"md5sum":   checksum, "sha1sum": checksum, "sha224sum": checksum, "sha256sum": checksum, "sha384sum": checksum, "sha512sum": checksum,
		"b2sum": checksum, "cksum": plain, "sum": plain,
		"base64":   {values: values("-w --wrap")},
		"base32":   {values: values("-w --wrap")},
		"echo":     noOperands,
		"printf":   noOperands,
		"pwd":      noOperands,
		"true":     noOperands,
		"false":    noOperands,
		":":        noOperands,
		"test":     noOperands,
		"[":        noOperands,
		"which":    noOperands,
		"type":     noOperands,
		"whereis":  noOperands,
		"file":     {dangers: []danger{{"-C", writes}, {"--compile", writes}}, readOpts: []string{"-m", "--magic-file", "-f", "--files-from"}, values: values("-m --magic-file -f --files-from -e --exclude -F --separator -P --parameter")},
		"stat":     {values: values("-c --format --printf")},
		"du":       {readOpts: []string{"--files0-from", "-X", "--exclude-from"}, values: values("-d --max-depth -B --block-size -t --threshold -X --exclude-from --exclude --time-style")},
		"df":       {values: values("-B --block-size -t --type -x --exclude-type --output")},
		"tree":     {dangers: []danger{{"-o", writes}}, readOpts: []string{"--fromfile"}, values: values("-L -P -I -o --charset --filelimit --timefmt --sort -H")},
		"basename": noOperands,
		"dirname":  noOperands,
		"realpath": noOperands,
		"readlink": noOperands,
		"date":     {custom: checkDate},
		"hostname": {custom: checkHostname},
		"uname":    noOperands,
		"whoami":   noOperands,
		"id":       noOperands,
		"groups":   noOperands,
		"nproc":    noOperands,
		"uptime":   noOperands,
		"free":     noOperands,
		"arch":     noOperands,
		"tty":      noOperands,
		"locale":   noOperands,
		"printenv": noOperands,
		"seq":      noOperands,
		"sleep":    noOperands,
		"yes":      noOperands,
		"expr":     noOperands,
		"jq":       {readOpts: []string{"-f", "--from-file", "--rawfile", "--slurpfile", "-L"}, values: values("--arg --argjson --indent -L"), operands: operandsPatternThenPaths, patternOpts: []string{"-f", "--from-file"}},
		"man":      {custom: checkMan},
		"git":      {custom: checkGit},
		"cd":       {custom: checkCd},
		"pushd":    {custom: checkCd},
		"popd":     {custom: checkCd},
	}
}

var grepSpec = spec{
	readOpts:    []string{"-f", "--file", "--exclude-from"},
	values:      values("-e --regexp -f --file -m --max-count -A -B -C --after-context --before-context --context -d --directories -D --devices --include --exclude --exclude-dir --label --color --colour"),
	operands:    operandsPatternThenPaths,
	patternOpts: []string{"-e", "--regexp", "-f", "--file"},
}

var rgSpec = spec{
	dangers: []danger{
		{"--pre", execs}, {"--hostname-bin", execs}, {"-z", "runs decompression programs"}, {"--search-zip", "runs decompression programs"},
	},
	readOpts:    []string{"-f", "--file", "--ignore-file"},
	values:      values("-e --regexp -f --file -g --glob --iglob -t --type -T --type-not -m --max-count -A -B -C --after-context --before-context --context -M --max-columns -j --threads -r --replace --pre --pre-glob --ignore-file --type-add --sort --sortr --color --colors --max-depth -d --max-filesize -E --encoding --engine --path-separator"),
	operands:    operandsPatternThenPaths,
	patternOpts: []string{"-e", "--regexp", "-f", "--file"},
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

// checkDate: date prints the time, but can also set it.
func checkDate(g *guard, name string, args []string, _ int, f *finding) {
	if hasFlag(args, "-s", "--set") {
		f.prompt(High, "date -s changes the system time")
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-d" || a == "--date" || a == "-r" || a == "--reference" || a == "-I" || a == "--iso-8601":
			if a != "-I" && a != "--iso-8601" {
				i++
			}
		case hasFlag([]string{a}, "-f", "--file"):
			f.prompt(Medium, "date -f reads a file named in an option")
		case strings.HasPrefix(a, "-"):
		case strings.HasPrefix(a, "+"):
		default:
			f.prompt(High, "date with an operand sets the system time")
		}
	}
}

// checkHostname: hostname prints the name; an operand or -F sets it.
func checkHostname(g *guard, name string, args []string, _ int, f *finding) {
	if hasFlag(args, "-F", "--file", "-b", "--boot") || len(operands(args)) > 0 {
		f.prompt(High, "hostname with an operand changes the host name")
	}
}

// checkMan: man formats a page for reading, unless an option names the
// pager, browser, viewer or configuration, or an operand names a local file
// (which the formatter would then process).
func checkMan(g *guard, name string, args []string, _ int, f *finding) {
	for _, o := range []string{"-P", "--pager", "-H", "--html", "-X", "--gxditview", "-C", "--config-file", "-l", "--local-file", "-p", "--preprocessor"} {
		if hasFlag(args, o) {
			f.prompt(High, "man "+o+" runs or reads something other than a manual page")
			return
		}
	}
	for _, op := range operands(args) {
		if strings.ContainsRune(op, '/') {
			f.prompt(High, "man "+op+" formats a local file")
		}
	}
}

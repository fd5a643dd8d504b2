package shellguard

// Option tables of GNU coreutils 9 (and the procps, util-linux and
// debianutils tools that sit beside them), as their --help and getopt
// strings define them. Every option a program accepts is listed, so that
// abbreviations resolve as the program resolves them; options that write
// or run something carry a refusing effect (!w, !x, !s, !u) and make the
// command prompt. Famous ones: sort -o/--output, sort --compress-program,
// sort -T (temporary files), uniq's second operand, date -s/--set and
// date's operand, diff -l/--paginate (runs pr).

const digits = "0 1 2 3 4 5 6 7 8 9"

// helpVersion are the two options every GNU tool takes.
const helpVersion = " /help /version"

var (
	lsOptions = options(gnu, `a/all A/almost-all /author b/escape B/ignore-backups /block-size= c C d/directory D/dired f F /classify?
		/file-type /format= /full-time g G/no-group /group-directories-first h/human-readable H/dereference-command-line
		/dereference-command-line-symlink-to-dir /hide= /hyperlink? i/inode I/ignore= /indicator-style= k/kibibytes l
		L/dereference m n/numeric-uid-gid N/literal o p q/hide-control-chars Q/quote-name /quoting-style= r/reverse
		R/recursive s/size S /show-control-chars /si /sort= t T/tabsize= /time= /time-style= u U v w/width= x X
		Z/context /zero 1 /color?`+helpVersion, nil)
	catOptions = options(gnu, `A/show-all b/number-nonblank e E/show-ends n/number s/squeeze-blank t T/show-tabs u
		v/show-nonprinting`+helpVersion, nil)
	tacOptions = options(gnu, `b/before r/regex s/separator=`+helpVersion, nil)
	nlOptions  = options(gnu, `b/body-numbering= d/section-delimiter= f/footer-numbering= h/header-numbering=
		i/line-increment= l/join-blank-lines= n/number-format= p/no-renumber s/number-separator=
		v/starting-line-number= w/number-width=`+helpVersion, nil)
	headOptions = options(gnu, `c/bytes= n/lines= q/quiet|silent v/verbose z/zero-terminated /-presume-input-pipe`+helpVersion, nil)
	tailOptions = options(gnu, `c/bytes= f /follow? F n/lines= /max-unchanged-stats= /pid= q/quiet|silent /retry
		s/sleep-interval= v/verbose z/zero-terminated /-presume-input-pipe`+helpVersion, nil)
	wcOptions = options(gnu, `c/bytes m/chars l/lines /files0-from=@l L/max-line-length w/words`+helpVersion, nil)
	// sort -T writes its temporary files into the directory it names.
	sortOptions = options(gnu, `b/ignore-leading-blanks c /check? C d/dictionary-order f/ignore-case g/general-numeric-sort
		h/human-numeric-sort i/ignore-nonprinting k/key= m/merge M/month-sort n/numeric-sort o/output=!w r/reverse
		R/random-sort s/stable S/buffer-size= t/field-separator= T/temporary-directory=!w u/unique V/version-sort
		z/zero-terminated /batch-size= /compress-program=!x /debug /files0-from=@l /parallel= /random-source=@r
		/sort=`+helpVersion, map[string]string{"temporary-directory": "writes temporary files into the directory it names"})
	uniqOptions = options(gnu, digits+` c/count d/repeated D /all-repeated? f/skip-fields= /group? i/ignore-case
		s/skip-chars= u/unique w/check-chars= z/zero-terminated`+helpVersion, nil)
	// diff -l pipes its output through pr.
	diffOptions = options(gnu, digits+` /normal q/brief s/report-identical-files c C= /context? u U= /unified? e/ed
		f/forward-ed n/rcs y/side-by-side W/width= /left-column /suppress-common-lines p/show-c-function
		F/show-function-line= /label= L= t/expand-tabs T/initial-tab /tabsize= /suppress-blank-empty l/paginate!x
		r/recursive@R /no-dereference N/new-file /unidirectional-new-file P /ignore-file-name-case
		/no-ignore-file-name-case x/exclude= X/exclude-from=@r S/starting-file= /from-file=@r /to-file=@r
		i/ignore-case E/ignore-tab-expansion Z/ignore-trailing-space b/ignore-space-change w/ignore-all-space
		B/ignore-blank-lines I/ignore-matching-lines= a/text /strip-trailing-cr /binary D/ifdef= /old-group-format=
		/new-group-format= /unchanged-group-format= /changed-group-format= /line-format= /old-line-format=
		/new-line-format= /unchanged-line-format= d/minimal H/speed-large-files /inhibit-hunk-merge /horizon-lines= /color? /palette=
		h v/version /help`, nil)
	cmpOptions  = options(gnu, `b/print-bytes c/print-chars i/ignore-initial= l/verbose n/bytes= s/quiet|silent v/version /help`, nil)
	commOptions = options(gnu, `1 2 3 /check-order /nocheck-order /output-delimiter= /total z/zero-terminated`+helpVersion, nil)
	joinOptions = options(gnu, `a= e= i/ignore-case j= o= t= v= 1= 2= /check-order /nocheck-order /header
		z/zero-terminated`+helpVersion, nil)
	pasteOptions = options(gnu, `d/delimiters= s/serial z/zero-terminated`+helpVersion, nil)
	cutOptions   = options(gnu, `b/bytes= c/characters= d/delimiter= f/fields= n s/only-delimited /output-delimiter=
		/complement z/zero-terminated`+helpVersion, nil)
	trOptions   = options(grammar{abbrev: true}, `c C /complement d/delete s/squeeze-repeats t/truncate-set1`+helpVersion, nil)
	foldOptions = options(gnu, digits+` b/bytes s/spaces w/width=`+helpVersion, nil)
	fmtOptions  = options(gnu, digits+` c/crown-margin p/prefix= s/split-only t/tagged-paragraph u/uniform-spacing
		w/width= g/goal=`+helpVersion, nil)
	expandOptions   = options(gnu, `0? 1? 2? 3? 4? 5? 6? 7? 8? 9? i/initial t/tabs=`+helpVersion, nil)
	unexpandOptions = options(gnu, digits+` a/all /first-only t/tabs=`+helpVersion, nil)
	odOptions       = options(gnu, `A/address-radix= a b B c d D e f F h H i I j/skip-bytes= l L N/read-bytes= o O s
		S= /strings? t/format= v/output-duplicates w/width? x X /traditional /endian=`+helpVersion, nil)
	sumOptions = options(gnu, `b/binary c/check@l t/text w/warn z/zero /ignore-missing /quiet /status /strict
		/tag`+helpVersion, nil)
	cksumOptions = options(gnu, `a/algorithm= c/check@l l/length= /tag /untagged z/zero /ignore-missing /quiet
		/status /strict w/warn /debug`+helpVersion, nil)
	bsdSumOptions = options(gnu, `r s/sysv`+helpVersion, nil)
	baseOptions   = options(gnu, `d/decode i/ignore-garbage w/wrap=`+helpVersion, nil)
	statOptions   = options(gnu, `L/dereference f/file-system /cached= c= /format= /printf= t/terse`+helpVersion, nil)
	duOptions     = options(gnu, `0/null a/all /apparent-size B/block-size= b/bytes c/total D/dereference-args H
		d/max-depth= /files0-from=@l /inodes h/human-readable /si k l/count-links L/dereference m
		P/no-dereference S/separate-dirs s/summarize t/threshold= /time? /time-style= X/exclude-from=@r
		/exclude= x/one-file-system`+helpVersion, nil)
	dfOptions = options(gnu, `a/all B/block-size= i/inodes h/human-readable H/si k l/local /output? P/portability
		/sync /no-sync /total t/type= T/print-type v x/exclude-type=`+helpVersion, nil)
	basenameOptions = options(grammar{abbrev: true}, `a/multiple s/suffix= z/zero`+helpVersion, nil)
	dirnameOptions  = options(gnu, `z/zero`+helpVersion, nil)
	realpathOptions = options(gnu, `E e/canonicalize-existing m/canonicalize-missing L/logical P/physical q/quiet
		/relative-to= /relative-base= s/strip|no-symlinks z/zero`+helpVersion, nil)
	readlinkOptions = options(gnu, `f/canonicalize e/canonicalize-existing m/canonicalize-missing n/no-newline
		q/quiet s/silent v/verbose z/zero`+helpVersion, nil)
	// date -s/--set and an operand that is not +FORMAT set the clock.
	dateOptions = options(gnu, `d/date= /debug f/file=@r I/iso-8601? r/reference=@r /resolution R/rfc-email|rfc-822|rfc-2822
		/rfc-3339= s/set=!s u/utc|universal|uct`+helpVersion, map[string]string{"set": "sets the system time"})
	// Debian's hostname: -F and -b set the name, as does an operand.
	// -a, -A, -d, -f, -i, -I and -y ask the resolver, NIS or the kernel's
	// netlink socket: the oracle sees a socket, so they are not read-only.
	hostnameOptions = options(gnu, `a/alias!u A/all-fqdns!u b/boot!s d/domain!u f/fqdn|long!u F/file=!s h/help i/ip-address!u
		I/all-ip-addresses!u s/short V/version y/yp|nis!u`, map[string]string{"boot": "sets the host name", "file": "sets the host name from a file",
		"alias": lookup, "all-fqdns": lookup, "domain": lookup, "fqdn": lookup, "ip-address": lookup, "all-ip-addresses": lookup, "yp": lookup})
	unameOptions = options(gnu, `a/all s/kernel-name n/nodename r/kernel-release v/kernel-version m/machine
		p/processor i/hardware-platform o/operating-system`+helpVersion, nil)
	bareOptions   = options(gnu, helpVersion, nil)
	idOptions     = options(gnu, `a Z/context g/group G/groups n/name r/real u/user z/zero`+helpVersion, nil)
	nprocOptions  = options(gnu, `/all /ignore=`+helpVersion, nil)
	uptimeOptions = options(gnu, `h/help p/pretty s/since V/version`, nil)
	freeOptions   = options(gnu, `b/bytes /kilo /mega /giga /tera /peta k/kibi m/mebi g/gibi /tebi /pebi h/human /si
		l/lohi t/total v/committed s/seconds= c/count= w/wide /help V/version`, nil)
	ttyOptions      = options(gnu, `s/silent|quiet`+helpVersion, nil)
	localeOptions   = options(gnu, `a/all-locales m/charmaps c/category-name k/keyword-name v/verbose ?/help /usage V/version`, nil)
	printenvOptions = options(gnu, `0/null`+helpVersion, nil)
	seqOptions      = options(grammar{abbrev: true, negativeNumbers: true}, `f/format= s/separator= w/equal-width`+helpVersion, nil)
	// shell builtins and debianutils' which: getopts, no long options,
	// options end at the first operand.
	pwdOptions   = options(grammar{}, `L P`, nil)
	typeOptions  = options(grammar{}, `a f p P t`, nil)
	whichOptions = options(grammar{}, `a s`, nil)
	// util-linux whereis; -B, -M, -S and -f (directory lists) are left out.
	whereisOptions = options(gnu, `b m s u l h/help V/version`, nil)
	// util-linux column
	columnOptions = options(gnu, `t/table n/table-name= O/table-order= N/table-columns= l/table-columns-limit=
		E/table-noextreme= d/table-noheadings e/table-header-repeat H/table-hide= R/table-right= T/table-truncate=
		W/table-wrap= L/keep-empty-lines|table-empty-lines J/json r/tree= i/tree-id= p/tree-parent= c/output-width|columns=
		o/output-separator= s/separator= x/fillrows h/help V/version`, nil)
	// util-linux hexdump
	hexdumpOptions = options(gnu, `b/one-byte-octal c/one-byte-char C/canonical d/two-bytes-decimal
		e/format= f/format-file=@r L/color? n/length= o/two-bytes-octal s/skip= v/no-squeezing x/two-bytes-hex
		h/help V/version`, nil)
	// binutils strings
	stringsOptions = options(gnu, digits+` a/all d/data f/print-file-name n/bytes= t/radix= o T/target= e/encoding=
		s/output-separator= w/include-all-whitespace U/unicode= h/help v/version V`, nil)
)

// lookup is why hostname's network options ask.
const lookup = "looks the host up through the network (resolver, NIS or a netlink socket)"

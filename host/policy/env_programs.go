package policy

// programConfigNames are variables that point an allowed program at a
// configuration or default options that can make it run or read
// something else: ripgrep's config file (which may name --pre), man's
// default options, tar's and the compressors' default options, wget's and
// curl's rc files. They join execControlNames, so that neither an
// overlay nor the operator's Pass list hands them to a command; the
// allowlist never inherits them anyway.
var programConfigNames = []string{
	"RIPGREP_CONFIG_PATH", "MANOPT", "MANPATH", "MANROFFSEQ", "MAN_KEEP_FORMATTING", "BROWSER",
	"TAR_OPTIONS", "GZIP", "BZIP2", "BZIP", "XZ_OPT", "XZ_DEFAULTS", "ZSTD_CLEVEL", "UNZIP", "ZIPOPT",
	"WGETRC", "CURL_HOME", "GREP_OPTIONS", "MAGIC", "AWKPATH", "AWKLIBPATH", "PARALLEL", "SCREENRC",
	"FZF_DEFAULT_COMMAND", "FZF_DEFAULT_OPTS", "BAT_CONFIG_PATH", "BAT_PAGER", "DELTA_PAGER", "TREE_CHARSET",
}

func init() {
	for _, k := range programConfigNames {
		execControlNames[k] = true
	}
}

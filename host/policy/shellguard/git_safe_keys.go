package shellguard

import "strings"

// gitSafeKeys are the configuration keys (section.key, lower case) known
// not to make git run a program, read files the guard does not see, or
// reach into other repositories: a closed world. Anything else in a
// repository's configuration makes git ask. Keys with a subsection are
// listed as section.*.key.
var gitSafeKeys = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range strings.Fields(`
core.repositoryformatversion core.filemode core.bare core.logallrefupdates core.ignorecase
core.precomposeunicode core.symlinks core.autocrlf core.safecrlf core.eol core.quotepath
core.checkstat core.trustctime core.abbrev core.compression core.loosecompression
core.sharedrepository core.warnambiguousrefs core.commentchar core.whitespace core.protecthfs
core.protectntfs core.preloadindex core.untrackedcache core.splitindex core.multipackindex
core.commitgraph core.deltabasecachelimit core.bigfilethreshold core.checkroundtripencoding
core.packedgitlimit core.packedgitwindowsize core.filesreflocktimeout core.packedrefstimeout
extensions.objectformat extensions.worktreeconfig extensions.noop
init.defaultbranch
user.name user.email user.signingkey user.useconfigonly
author.name author.email committer.name committer.email
diff.renames diff.renamelimit diff.algorithm diff.mnemonicprefix diff.noprefix diff.context
diff.interhunkcontext diff.colormoved diff.colormovedws diff.indentheuristic diff.suppressblankempty
diff.statgraphwidth diff.relative diff.dirstat diff.wserrorhighlight diff.srcprefix diff.dstprefix
log.date log.decorate log.abbrevcommit log.follow log.showroot log.mailmap log.excludedecoration
log.initialdecorationset log.graphcolors
status.showuntrackedfiles status.short status.branch status.relativepaths status.aheadbehind
status.renames status.renamelimit status.showstash
pull.rebase pull.ff push.default push.autosetupremote push.followtags fetch.prune fetch.prunetags
merge.conflictstyle merge.ff rebase.autosquash rebase.autostash rebase.updaterefs
branch.autosetupmerge branch.autosetuprebase branch.sort tag.sort column.ui column.branch
column.status column.tag grep.linenumber grep.extendedregexp grep.patterntype grep.column
grep.fullname blame.date blame.coloring blame.showemail blame.blankboundary blame.showroot
i18n.commitencoding i18n.logoutputencoding commit.verbose commit.status
format.pretty lfs.repositoryformatversion
remote.*.url remote.*.pushurl remote.*.fetch remote.*.push remote.*.tagopt remote.*.prune
remote.*.prunetags remote.*.mirror remote.*.skipdefaultupdate remote.*.skipfetchall
branch.*.remote branch.*.pushremote branch.*.merge branch.*.rebase branch.*.description
branch.*.vscode-merge-base gui.wmstate gui.geometry
`) {
		m[k] = true
	}
	return m
}()

// gitSafeSections are sections whose every key is harmless: colours,
// advice messages and named log formats.
var gitSafeSections = map[string]bool{"color": true, "advice": true, "pretty": true}

// safeGitKey reports whether a configuration entry is in the closed
// world of harmless keys.
func safeGitKey(e configEntry) bool {
	if gitSafeSections[e.section] {
		return true
	}
	if e.subsection == "" {
		return gitSafeKeys[e.section+"."+e.key]
	}
	return gitSafeKeys[e.section+".*."+e.key]
}

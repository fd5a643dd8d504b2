package fsops

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// SearchParams are the arguments of search_files.
type SearchParams struct {
	Pattern         string `json:"pattern,omitempty" jsonschema_description:"Regular expression (RE2 syntax) to search file contents for, line by line. Leave empty with mode files to list files by glob."`
	Glob            string `json:"glob,omitempty" jsonschema_description:"File filter. Without '/' it matches file names at any depth (*.go finds every Go file); with '/' it matches the path relative to path, ** standing for any directories (cmd/**/main.go); a leading '/' means the top level only (/*.md). {a,b} expands."`
	Path            string `json:"path,omitempty" jsonschema_description:"Directory or file to search, relative to the workspace (default: the whole workspace)."`
	Mode            string `json:"mode,omitempty" jsonschema:"enum=content,enum=files" jsonschema_description:"content: the matching lines (default when pattern is set). files: only the paths of matching files."`
	MaxResults      int    `json:"max_results,omitempty" jsonschema:"minimum=0,maximum=1000" jsonschema_description:"Maximum number of lines or files returned (default 100, at most 1000)."`
	CaseInsensitive bool   `json:"case_insensitive,omitempty" jsonschema_description:"Match the pattern ignoring case."`
	ContextLines    int    `json:"context_lines,omitempty" jsonschema:"minimum=0,maximum=5" jsonschema_description:"Lines of context before and after each matching line (at most 5)."`
}

// SearchMatch is one matching line.
type SearchMatch struct {
	Path   string   `json:"path"` // relative to the workspace
	Line   int      `json:"line"`
	Text   string   `json:"text"`
	Before []string `json:"before,omitempty"`
	After  []string `json:"after,omitempty"`

	invalidUTF8 bool // the line or its context had bytes shown as U+FFFD
}

// SearchResult is a bounded answer that says why it is as short as it is.
type SearchResult struct {
	Mode    string        `json:"mode"`
	Matches []SearchMatch `json:"matches,omitempty"`
	Files   []string      `json:"files,omitempty"`
	// Count is the number of items returned. TotalCount is the number found
	// (matching lines in content mode, matching files in files mode); it is
	// a lower bound when TotalIsLowerBound, because a bound stopped the walk
	// or files were too large to search. Dropped = TotalCount - Count.
	Count             int      `json:"count"`
	TotalCount        int      `json:"total_count"`
	TotalIsLowerBound bool     `json:"total_is_lower_bound"`
	Dropped           int      `json:"dropped"`
	Truncated         bool     `json:"truncated"`
	StoppedBy         []string `json:"stopped_by,omitempty"` // max_results, output_budget, max_candidate_files, walk_entries, time_budget, file_size_cap
	FilesSearched     int      `json:"files_searched"`
	EntriesWalked     int      `json:"entries_walked"`
	ExcludedSensitive int      `json:"excluded_sensitive"` // credential-like paths left out
	// InvalidUTF8Matches counts returned matches whose line or context
	// had bytes that are not valid UTF-8, shown as U+FFFD.
	InvalidUTF8Matches int         `json:"invalid_utf8_matches,omitempty"`
	Skipped            SearchSkips `json:"skipped"`
	Note               string      `json:"note,omitempty"`
}

// SearchSkips counts what the search did not look into, and why.
type SearchSkips struct {
	Binary        int      `json:"binary"`
	TooLarge      int      `json:"too_large"`
	TooLargeFiles []string `json:"too_large_files,omitempty"` // the first few, by path
	Symlinks      int      `json:"symlinks"`                  // not followed
	HardLinked    int      `json:"hard_linked"`
	Special       int      `json:"special"` // FIFOs, sockets, devices
	Unreadable    int      `json:"unreadable"`
	Dirs          int      `json:"dirs"`                 // VCS and dependency directories not descended
	DirNames      []string `json:"dir_names,omitempty"`  // their distinct names
	HostState     int      `json:"host_state,omitempty"` // demiurge state directories not descended (hoststate.go)
}

// searchLimits bound one search.
type searchLimits struct {
	defaultResults int
	maxResults     int
	maxCandidates  int64 // files whose content is read
	maxWalkEntries int64 // directory entries looked at
	timeBudget     time.Duration
	maxFileSize    int64
	maxOutputChars int // text returned, all items together
	lineChars      int // characters kept of one line
	maxContext     int
	maxNamed       int // too-large files and skipped directory names listed
}

var defaultSearchLimits = searchLimits{
	defaultResults: 100,
	maxResults:     1000,
	maxCandidates:  50000,
	maxWalkEntries: 500000,
	timeBudget:     15 * time.Second,
	maxFileSize:    8 << 20,
	maxOutputChars: 60000,
	lineChars:      300,
	maxContext:     5,
	maxNamed:       5,
}

// skipDirNames are directories of version control data and installed
// dependencies: large, generated, and rarely what a search is about.
var skipDirNames = map[string]bool{
	".git": true, ".hg": true, ".svn": true, ".bzr": true, "_darcs": true,
	"node_modules": true, "bower_components": true, "__pycache__": true,
	".venv": true, ".tox": true, ".nox": true, ".mypy_cache": true,
	".pytest_cache": true, ".ruff_cache": true, ".gradle": true, ".terraform": true,
}

// Search looks for a regular expression in file contents (mode content,
// or mode files with a pattern: files that contain it) or lists files by
// glob (mode files without a pattern). It walks in parallel and reads
// each file whole; results are sorted by path and line, and the smallest
// max_results are returned whatever the walk order was.
func Search(ctx context.Context, ws *Workspace, p SearchParams) (SearchResult, error) {
	return search(ctx, ws, p, defaultSearchLimits)
}

func search(ctx context.Context, ws *Workspace, p SearchParams, lim searchLimits) (SearchResult, error) {
	s, err := newSearcher(ws, p, lim)
	if err != nil {
		return SearchResult{}, err
	}
	target := p.Path
	if target == "" {
		target = "."
	}
	t, err := ws.resolve(target)
	if err != nil {
		return SearchResult{}, err
	}
	s.baseRel = t.display
	s.deadline = time.Now().Add(lim.timeBudget)
	s.done = ctx.Done()

	workers := s.newWorkers()
	defer func() {
		for _, w := range workers {
			w.release()
		}
	}()
	of, err := ws.openRead(target)
	switch {
	case err == nil:
		// A single file: the same checks as read_file, then one search.
		if err := ws.refuseHostState(target, of.f, false); err != nil {
			of.Close()
			return SearchResult{}, err
		}
		s.baseRel = ""
		workers[0].searchOpened(of)
		of.Close()
	case errors.Is(err, ErrIsDirectory) && !t.grant:
		fd, err := s.openBaseDir(target, t)
		if err != nil {
			return SearchResult{}, err
		}
		s.walk(workers, fd)
	case errors.Is(err, ErrIsDirectory):
		return SearchResult{}, refuse(target, ErrOutsideWorkspace, "searching a directory outside the workspace is not possible; search inside the workspace")
	default:
		return SearchResult{}, err
	}
	if ctx.Err() != nil {
		return SearchResult{}, ctx.Err()
	}
	return s.collect(workers), nil
}

func newSearcher(ws *Workspace, p SearchParams, lim searchLimits) (*searcher, error) {
	s := &searcher{ws: ws, lim: lim}
	switch p.Mode {
	case "":
		s.mode = "content"
		if p.Pattern == "" {
			s.mode = "files"
		}
	case "content", "files":
		s.mode = p.Mode
	default:
		return nil, refuse("", ErrInvalidArgument, "mode %q is unknown; use content or files", p.Mode)
	}
	if s.mode == "content" || p.Pattern != "" {
		m, err := compileLineMatcher(p.Pattern, p.CaseInsensitive)
		if err != nil {
			return nil, err
		}
		s.m = m
	}
	if s.mode == "files" && p.Pattern == "" && p.Glob == "" {
		return nil, refuse("", ErrInvalidArgument, "mode files needs a glob (for example *.go) or a pattern")
	}
	g, err := compileGlob(p.Glob)
	if err != nil {
		return nil, err
	}
	s.glob = g
	s.maxResults = p.MaxResults
	if s.maxResults <= 0 {
		s.maxResults = lim.defaultResults
	}
	s.maxResults = min(s.maxResults, lim.maxResults)
	s.contextLines = min(max(p.ContextLines, 0), lim.maxContext)
	s.q = newWorkQueue()
	return s, nil
}

// openBaseDir opens the directory to search through the root, with the
// same real-path check as a file, and returns a descriptor the walk owns.
func (s *searcher) openBaseDir(p string, t target) (int, error) {
	f, err := s.ws.root.OpenFile(t.rel, os.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, openError(p, err)
	}
	defer f.Close()
	if err := s.ws.checkRealPath(p, t, f); err != nil {
		return -1, err
	}
	if err := s.ws.refuseHostState(p, f, true); err != nil {
		return -1, err
	}
	fd := -1
	rc, err := f.SyscallConn()
	if err == nil {
		err = rc.Control(func(u uintptr) { fd, err = unix.FcntlInt(u, unix.F_DUPFD_CLOEXEC, 0) })
	}
	if err != nil {
		return -1, fmt.Errorf("%s: duplicate directory descriptor: %w", p, err)
	}
	return fd, nil
}

func (s *searcher) newWorkers() []*searchWorker {
	n := max(runtime.GOMAXPROCS(0), 1)
	ws := make([]*searchWorker, n)
	for i := range ws {
		ws[i] = newSearchWorker(s)
	}
	return ws
}

// walk runs the workers over the tree under fd until the queue drains.
func (s *searcher) walk(workers []*searchWorker, fd int) {
	s.q.push([]walkJob{{fd: fd, dir: true}})
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.run()
		}()
	}
	wg.Wait()
}

// collect merges the workers' selections and counts into the result.
func (s *searcher) collect(workers []*searchWorker) SearchResult {
	res := SearchResult{Mode: s.mode, EntriesWalked: int(s.entries.Load())}
	matches := newBoundedSelection(s.maxResults, matchLess)
	files := newBoundedSelection(s.maxResults, func(a, b string) bool { return a < b })
	var tooLarge []string
	dirNames := map[string]bool{}
	for _, w := range workers {
		res.TotalCount += w.total
		res.FilesSearched += w.filesSearched
		res.ExcludedSensitive += w.excluded
		k := &res.Skipped
		k.Binary += w.skips.Binary
		k.TooLarge += w.skips.TooLarge
		k.Symlinks += w.skips.Symlinks
		k.HardLinked += w.skips.HardLinked
		k.Special += w.skips.Special
		k.HostState += w.hostState
		k.Unreadable += w.skips.Unreadable
		k.Dirs += w.skips.Dirs
		tooLarge = append(tooLarge, w.skips.TooLargeFiles...)
		for n := range w.dirNames {
			dirNames[n] = true
		}
		for _, m := range w.matches.items {
			matches.offer(m)
		}
		for _, f := range w.files.items {
			files.offer(f)
		}
	}
	sort.Strings(tooLarge)
	res.Skipped.TooLargeFiles = tooLarge[:min(len(tooLarge), s.lim.maxNamed)]
	for n := range dirNames {
		res.Skipped.DirNames = append(res.Skipped.DirNames, n)
	}
	sort.Strings(res.Skipped.DirNames)

	chars := 0
	if s.mode == "content" {
		for _, m := range matches.sorted() {
			chars += len(m.Path) + len(m.Text) + 16
			for _, c := range m.Before {
				chars += len(c)
			}
			for _, c := range m.After {
				chars += len(c)
			}
			if chars > s.lim.maxOutputChars && len(res.Matches) > 0 {
				s.stop("output_budget")
				break
			}
			res.Matches = append(res.Matches, m)
		}
		res.Count = len(res.Matches)
		for _, m := range res.Matches {
			if m.invalidUTF8 {
				res.InvalidUTF8Matches++
			}
		}
	} else {
		for _, f := range files.sorted() {
			chars += len(f) + 4
			if chars > s.lim.maxOutputChars && len(res.Files) > 0 {
				s.stop("output_budget")
				break
			}
			res.Files = append(res.Files, f)
		}
		res.Count = len(res.Files)
	}
	res.StoppedBy = s.stoppedBy
	res.TotalIsLowerBound = len(s.stoppedBy) > 0 && !onlyOutputBound(s.stoppedBy)
	if res.Skipped.TooLarge > 0 && s.m != nil {
		res.StoppedBy = append(res.StoppedBy, "file_size_cap")
		res.TotalIsLowerBound = true
	}
	if res.TotalCount > res.Count && res.Count == s.maxResults {
		res.StoppedBy = append([]string{"max_results"}, res.StoppedBy...)
	}
	res.Dropped = res.TotalCount - res.Count
	res.Truncated = res.Dropped > 0 || res.TotalIsLowerBound
	res.Note = s.note(res)
	return res
}

func onlyOutputBound(rs []string) bool {
	return len(rs) == 1 && rs[0] == "output_budget"
}

func matchLess(a, b SearchMatch) bool {
	if a.Path != b.Path {
		return a.Path < b.Path
	}
	return a.Line < b.Line
}

// note explains a result that is empty or cut short, so that "nothing
// found" is never confused with "nothing looked at".
func (s *searcher) note(res SearchResult) string {
	var parts []string
	if res.Count == 0 {
		what := "no matching lines"
		if s.mode == "files" {
			what = "no matching files"
		}
		if s.m != nil {
			parts = append(parts, fmt.Sprintf("%s in %d files searched", what, res.FilesSearched))
		} else {
			parts = append(parts, fmt.Sprintf("%s among %d entries walked", what, res.EntriesWalked))
		}
	}
	if len(res.StoppedBy) > 0 {
		parts = append(parts, "stopped by "+strings.Join(res.StoppedBy, ", "))
	}
	k := res.Skipped
	var skipped []string
	for _, c := range []struct {
		n    int
		what string
	}{
		{res.ExcludedSensitive, "credential-like paths left out"},
		{k.Binary, "binary files"},
		{k.TooLarge, fmt.Sprintf("files over %d bytes", s.lim.maxFileSize)},
		{k.Dirs, "dependency/VCS directories"},
		{k.HostState, "host state directories (sessions, logs, keys) left out"},
		{k.Symlinks, "symlinks (not followed)"},
		{k.HardLinked, "multiply hard-linked files"},
		{k.Special, "special files"},
		{k.Unreadable, "unreadable entries"},
	} {
		if c.n > 0 {
			skipped = append(skipped, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	// Every skip is named, whatever the count: a skipped file may have
	// matched, and the model must not read "dropped 0" as "all of it".
	if len(skipped) > 0 {
		parts = append(parts, "skipped: "+strings.Join(skipped, ", "))
	}
	if res.InvalidUTF8Matches > 0 {
		parts = append(parts, fmt.Sprintf("%d matches shown had bytes that are not valid UTF-8, each run shown as U+FFFD", res.InvalidUTF8Matches))
	}
	if res.Dropped > 0 {
		parts = append(parts, fmt.Sprintf("%d more not shown; narrow the path, glob or pattern", res.Dropped))
	}
	return strings.Join(parts, "; ")
}

package fsops

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"demiurge.dev/shared/pathrules"
	"golang.org/x/sys/unix"
)

// searcher is the state one search shares between its workers.
type searcher struct {
	ws           *Workspace
	lim          searchLimits
	mode         string
	m            *lineMatcher // nil when listing files by glob only
	glob         *globMatcher // nil: every file
	maxResults   int
	contextLines int
	baseRel      string // search directory relative to the workspace, slash-separated

	q          *workQueue
	deadline   time.Time
	done       <-chan struct{}
	entries    atomic.Int64
	candidates atomic.Int64
	halted     atomic.Bool
	mu         sync.Mutex
	stoppedBy  []string
}

// stop records a bound that ended the search or cut its answer.
func (s *searcher) stop(reason string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.stoppedBy {
		if r == reason {
			return
		}
	}
	s.stoppedBy = append(s.stoppedBy, reason)
}

// halt stops the walk: workers drain the queue without doing the jobs.
func (s *searcher) halt(reason string) {
	s.halted.Store(true)
	s.stop(reason)
}

// display is the workspace-relative path of a walk-relative one.
func (s *searcher) display(rel string) string {
	if s.baseRel == "." || s.baseRel == "" {
		return rel
	}
	return s.baseRel + "/" + rel
}

// searchWorker owns its buffers and partial results, so workers share
// nothing but the queue and a few counters.
type searchWorker struct {
	s             *searcher
	dirent        []byte
	buf           []byte
	pooled        *[]byte
	matches       *boundedSelection[SearchMatch]
	files         *boundedSelection[string]
	total         int
	filesSearched int
	excluded      int
	hostState     int // host state directories left out
	skips         SearchSkips
	dirNames      map[string]bool
}

func newSearchWorker(s *searcher) *searchWorker {
	return &searchWorker{
		s:        s,
		dirent:   make([]byte, 32<<10),
		matches:  newBoundedSelection(s.maxResults, matchLess),
		files:    newBoundedSelection(s.maxResults, func(a, b string) bool { return a < b }),
		dirNames: map[string]bool{},
	}
}

func (w *searchWorker) run() {
	s := w.s
	for {
		j, ok := s.q.pop()
		if !ok {
			return
		}
		select {
		case <-s.done:
			s.halt("cancelled")
		default:
		}
		if !s.halted.Load() && time.Now().After(s.deadline) {
			s.halt("time_budget")
		}
		switch {
		case s.halted.Load():
			if j.parent != nil {
				j.parent.release()
			} else {
				unix.Close(j.fd)
			}
		case j.dir:
			w.walkDir(j)
		default:
			w.searchFile(j)
		}
		s.q.finish()
	}
}

func openatRetry(dirfd int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags, 0)
		if !errors.Is(err, unix.EINTR) {
			return fd, err
		}
	}
}

// walkDir lists one directory and queues its subdirectories and the files
// to search; a listing by glob alone records matching names right here.
func (w *searchWorker) walkDir(j walkJob) {
	s := w.s
	fd := j.fd
	if j.parent != nil {
		var err error
		fd, err = openatRetry(j.parent.fd, j.name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC)
		j.parent.release()
		if err != nil {
			w.skips.Unreadable++
			return
		}
	}
	h := newDirHandle(fd)
	var children []walkJob
	err := readDirents(fd, w.dirent, func(name string, typ uint8) bool {
		if s.halted.Load() {
			return false
		}
		if s.entries.Add(1) > s.lim.maxWalkEntries {
			s.entries.Add(-1)
			s.halt("walk_entries")
			return false
		}
		rel := name
		if j.rel != "" {
			rel = j.rel + "/" + name
		}
		if typ == unix.DT_UNKNOWN {
			typ = statType(fd, name)
		}
		switch typ {
		case unix.DT_DIR:
			if skipDirNames[name] {
				w.skips.Dirs++
				w.dirNames[name] = true
				return true
			}
			if s.glob != nil && !s.glob.mayContain(rel) {
				return true
			}
			if pathrules.IsSensitive(s.display(rel)) {
				w.excluded++
				return true
			}
			if isHostStateDir(fd, name) {
				w.hostState++
				return true
			}
			h.retain()
			children = append(children, walkJob{parent: h, name: name, rel: rel, dir: true})
		case unix.DT_REG:
			if s.glob != nil && !s.glob.match(rel, name) {
				return true
			}
			disp := s.display(rel)
			if pathrules.IsSensitive(disp) {
				w.excluded++
				return true
			}
			if s.m == nil {
				w.total++
				w.files.offer(disp)
				return true
			}
			h.retain()
			children = append(children, walkJob{parent: h, name: name, rel: rel})
		case unix.DT_LNK:
			w.skips.Symlinks++
		case unix.DT_UNKNOWN: // vanished, or not statable
			w.skips.Unreadable++
		default:
			w.skips.Special++
		}
		return true
	})
	if err != nil {
		w.skips.Unreadable++
	}
	h.release()
	s.q.push(children)
}

func statType(dirfd int, name string) uint8 {
	var st unix.Stat_t
	if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
		return unix.DT_UNKNOWN
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return unix.DT_DIR
	case unix.S_IFREG:
		return unix.DT_REG
	case unix.S_IFLNK:
		return unix.DT_LNK
	}
	return unix.DT_FIFO // any special file
}

// searchFile opens one file relative to its directory (no symlink
// followed, never blocking), checks it on the descriptor and searches it.
func (w *searchWorker) searchFile(j walkJob) {
	s := w.s
	if s.candidates.Add(1) > s.lim.maxCandidates {
		j.parent.release()
		s.halt("max_candidate_files")
		return
	}
	fd, err := openatRetry(j.parent.fd, j.name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC)
	j.parent.release()
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			w.skips.Symlinks++ // replaced by a symlink since it was listed
		} else {
			w.skips.Unreadable++
		}
		return
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		w.skips.Unreadable++
		return
	}
	disp := s.display(j.rel)
	if !w.admit(disp, st.Mode, uint64(st.Nlink), st.Size) {
		return
	}
	n, err := readFull(fd, w.grow(st.Size))
	if err != nil {
		w.skips.Unreadable++
		return
	}
	w.searchContent(disp, w.buf[:n])
}

// searchOpened searches one file already opened through the boundary.
func (w *searchWorker) searchOpened(of *openedFile) {
	disp := of.t.display
	if pathrules.IsSensitive(disp) {
		w.excluded++
		return
	}
	if w.s.glob != nil && !w.s.glob.match(disp, pathBase(disp)) {
		return
	}
	if w.s.m == nil {
		w.total++
		w.files.offer(disp)
		return
	}
	if !w.admit(disp, unix.S_IFREG, 1, of.size) {
		return
	}
	n, err := io.ReadFull(of.f, w.grow(of.size))
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		w.skips.Unreadable++
		return
	}
	w.searchContent(disp, w.buf[:n])
}

// admit applies the per-file checks and bounds before reading.
func (w *searchWorker) admit(disp string, mode uint32, nlink uint64, size int64) bool {
	switch {
	case mode&unix.S_IFMT != unix.S_IFREG:
		w.skips.Special++
	case nlink > 1:
		w.skips.HardLinked++
	case size > w.s.lim.maxFileSize:
		w.skips.TooLarge++
		if len(w.skips.TooLargeFiles) < w.s.lim.maxNamed {
			w.skips.TooLargeFiles = append(w.skips.TooLargeFiles, disp)
		}
	default:
		return true
	}
	return false
}

// fileBuffers keeps file buffers between searches: a search of a large
// tree otherwise allocates (and zeroes) them afresh each time.
var fileBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 256<<10); return &b }}

// grow returns the worker's buffer sized for a file of size bytes.
func (w *searchWorker) grow(size int64) []byte {
	if w.buf == nil {
		w.pooled = fileBuffers.Get().(*[]byte)
		w.buf = *w.pooled
	}
	if int64(cap(w.buf)) < size {
		w.buf = make([]byte, max(size, min(2*int64(cap(w.buf)), w.s.lim.maxFileSize)))
	}
	return w.buf[:size]
}

// release returns the worker's buffer to the pool.
func (w *searchWorker) release() {
	if w.pooled != nil {
		*w.pooled = w.buf[:0]
		fileBuffers.Put(w.pooled)
		w.pooled, w.buf = nil, nil
	}
}

func readFull(fd int, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := unix.Read(fd, b[n:])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return n, err
		}
		if m == 0 {
			break // shrank since fstat
		}
		n += m
	}
	return n, nil
}

// searchContent finds the matching lines of one file's bytes.
func (w *searchWorker) searchContent(disp string, data []byte) {
	s := w.s
	w.filesSearched++
	// Binary wherever it is, not only in the head: a NUL anywhere, or
	// mostly bytes that are not UTF-8 (the same rule as read_file).
	if bytes.IndexByte(data, 0) >= 0 || (!utf8.Valid(data) && looksBinary(data, true)) {
		w.skips.Binary++
		return
	}
	if s.mode == "files" {
		found := false
		s.m.eachLine(data, func(int, int) bool { found = true; return false })
		if found {
			w.total++
			w.files.offer(disp)
		}
		return
	}
	line, counted := 1, 0
	s.m.eachLine(data, func(start, end int) bool {
		line += bytes.Count(data[counted:start], []byte{'\n'})
		counted = start
		w.total++
		m := SearchMatch{Path: disp, Line: line}
		if w.matches.wouldKeep(m) {
			m.Text = lineText(data[start:end], s.lim.lineChars)
			if s.contextLines > 0 {
				m.Before, m.After = contextAround(data, start, end, s.contextLines, s.lim.lineChars)
			}
			m.invalidUTF8 = !utf8.Valid(data[start:end]) || hasReplacement(m.Before, m.After)
			w.matches.offer(m)
		}
		return true
	})
}

// hasReplacement reports whether a context line shows U+FFFD, which
// lineText puts where bytes were not valid UTF-8 (or the file had it).
func hasReplacement(groups ...[]string) bool {
	for _, g := range groups {
		for _, l := range g {
			if strings.ContainsRune(l, utf8.RuneError) {
				return true
			}
		}
	}
	return false
}

// lineText renders a line for a result: without a carriage return, valid
// UTF-8, cut to n characters.
func lineText(b []byte, n int) string {
	return clipLine(string(bytes.TrimSuffix(b, []byte{'\r'})), n)
}

// contextAround returns up to n lines before and after the line [start,end).
func contextAround(data []byte, start, end, n, chars int) (before, after []string) {
	pos := start
	for range n {
		if pos == 0 {
			break
		}
		ls := bytes.LastIndexByte(data[:pos-1], '\n') + 1
		before = append(before, lineText(data[ls:pos-1], chars))
		pos = ls
	}
	for i, j := 0, len(before)-1; i < j; i, j = i+1, j-1 {
		before[i], before[j] = before[j], before[i]
	}
	pos = end
	for range n {
		if pos >= len(data)-1 {
			break
		}
		next := pos + 1
		le := len(data)
		if k := bytes.IndexByte(data[next:], '\n'); k >= 0 {
			le = next + k
		}
		after = append(after, lineText(data[next:le], chars))
		pos = le
	}
	return before, after
}

func pathBase(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

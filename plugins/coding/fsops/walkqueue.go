package fsops

import (
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// dirHandle is an open directory shared by the jobs for its entries; the
// last job to finish with it closes it. Entries are opened relative to it,
// so the walk never re-resolves a path and never follows a symlink.
type dirHandle struct {
	fd   int
	refs atomic.Int32
}

func newDirHandle(fd int) *dirHandle {
	h := &dirHandle{fd: fd}
	h.refs.Store(1)
	return h
}

func (h *dirHandle) retain() { h.refs.Add(1) }

func (h *dirHandle) release() {
	if h.refs.Add(-1) == 0 {
		unix.Close(h.fd)
	}
}

// walkJob is one directory to list or one file to search.
type walkJob struct {
	parent *dirHandle // nil for the starting directory, which comes with fd
	fd     int
	name   string
	rel    string // slash-separated, relative to the search directory
	dir    bool
}

// workQueue is a LIFO of jobs shared by the workers. LIFO keeps the walk
// depth-first, so few directories are held open at once. It is done when
// it is empty and no popped job is still running (a running job may push).
type workQueue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	jobs   []walkJob
	active int
}

func newWorkQueue() *workQueue {
	q := &workQueue{}
	q.cond = sync.NewCond(&q.mu)
	return q
}

func (q *workQueue) push(js []walkJob) {
	if len(js) == 0 {
		return
	}
	q.mu.Lock()
	q.jobs = append(q.jobs, js...)
	q.mu.Unlock()
	if len(js) == 1 {
		q.cond.Signal()
	} else {
		q.cond.Broadcast()
	}
}

// pop waits for a job; false means the walk is over.
func (q *workQueue) pop() (walkJob, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.jobs) == 0 {
		if q.active == 0 {
			q.cond.Broadcast()
			return walkJob{}, false
		}
		q.cond.Wait()
	}
	j := q.jobs[len(q.jobs)-1]
	q.jobs[len(q.jobs)-1] = walkJob{}
	q.jobs = q.jobs[:len(q.jobs)-1]
	q.active++
	return j, true
}

// finish marks a popped job as done.
func (q *workQueue) finish() {
	q.mu.Lock()
	q.active--
	idle := q.active == 0 && len(q.jobs) == 0
	q.mu.Unlock()
	if idle {
		q.cond.Broadcast()
	}
}

package shellguard

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// s53f: races on the repository review cache (anchoredStamps). Each
// scenario checks git status where no repository is, lets the cache keep
// that review, then makes a repository with a hostile configuration
// appear where git would find it; the next check must see it.

const s53fEvil = "[core]\n\tfsmonitor = /bin/evil\n"

// s53fRepo makes a repository with a hostile configuration at dir (its
// .git directory when bare is false, dir itself as a bare one otherwise).
func s53fRepo(t *testing.T, dir string, bare bool) {
	t.Helper()
	gd := filepath.Join(dir, ".git")
	if bare {
		gd = dir
	}
	mkdir(t, filepath.Join(gd, "objects"))
	mkdir(t, filepath.Join(gd, "refs"))
	write(t, filepath.Join(gd, "config"), s53fEvil)
	write(t, filepath.Join(gd, "HEAD"), "ref: refs/heads/main\n")
}

func s53fGit(t *testing.T, step, ws, cwd string, want Decision) {
	t.Helper()
	v := Check("git status", Options{WorkspaceRoot: ws, Cwd: cwd, Files: OSFiles{}})
	if v.Decision != want {
		t.Fatalf("%s: git status in %s = %v %q, want %v", step, cwd, v.Decision, v.Reasons, want)
	}
}

// s53fWorld is a fresh world with the directories named made; base holds
// ws and nothing else is a repository.
func s53fWorld(t *testing.T, dirs ...string) (base, ws string) {
	ws = repoWorld(t, nil)
	base = filepath.Dir(ws)
	for _, d := range dirs {
		mkdir(t, filepath.Join(base, d))
	}
	return base, ws
}

// s53fMake makes a world, runs setup in it, then makes the cwd (after
// setup: a symlinked cwd's own directory is made through the link).
func s53fMake(t *testing.T, dirs []string, setup func(*testing.T, string), cwd string) (base, ws string) {
	base, ws = s53fWorld(t, dirs...)
	if setup != nil {
		setup(t, base)
	}
	mkdir(t, filepath.Join(base, cwd))
	return base, ws
}

func s53fRename(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}

func s53fSymlink(t *testing.T, target, link string) {
	t.Helper()
	tmp := link + ".new"
	if err := os.Symlink(target, tmp); err != nil {
		t.Fatal(err)
	}
	s53fRename(t, tmp, link) // atomically, as an attacker would
}

func TestS53fRepoCacheRaces(t *testing.T) {
	// Built first and left to settle together, so that their directories
	// serve as anchors.
	type scenario struct {
		name  string
		cwd   string // below base
		dirs  []string
		setup func(t *testing.T, base string) // before the settle
		young func(t *testing.T, base string) // after the settle, just before the first check
		then  func(t *testing.T, base string) // after the first checks
	}
	scenarios := []scenario{
		{name: "cwd gains .git", cwd: "ws/a", then: func(t *testing.T, b string) { s53fRepo(t, filepath.Join(b, "ws/a"), false) }},
		{name: "parent gains .git", cwd: "ws/a/b/c", then: func(t *testing.T, b string) { s53fRepo(t, filepath.Join(b, "ws/a"), false) }},
		{name: "workspace gains .git", cwd: "ws/a/b", then: func(t *testing.T, b string) { s53fRepo(t, filepath.Join(b, "ws"), false) }},
		{name: "above the workspace gains .git", cwd: "ws/a", then: func(t *testing.T, b string) { s53fRepo(t, b, false) }},
		{name: "parent becomes bare (HEAD last)", cwd: "ws/a/b", then: func(t *testing.T, b string) { s53fRepo(t, filepath.Join(b, "ws/a"), true) }},
		{name: "parent gains HEAD alone (objects, refs, config settled)", cwd: "ws/a/b",
			setup: func(t *testing.T, b string) {
				mkdir(t, filepath.Join(b, "ws/a/objects"))
				mkdir(t, filepath.Join(b, "ws/a/refs"))
				write(t, filepath.Join(b, "ws/a/config"), s53fEvil)
			},
			then: func(t *testing.T, b string) { write(t, filepath.Join(b, "ws/a/HEAD"), "ref: refs/heads/main\n") }},
		{name: "cwd becomes bare", cwd: "ws/a", then: func(t *testing.T, b string) { s53fRepo(t, filepath.Join(b, "ws/a"), true) }},
		{name: ".git is a file", cwd: "ws/a/b", dirs: []string{"elsewhere"},
			setup: func(t *testing.T, b string) { s53fRepo(t, filepath.Join(b, "elsewhere"), true) },
			then: func(t *testing.T, b string) {
				write(t, filepath.Join(b, "ws/a/.git"), "gitdir: "+filepath.Join(b, "elsewhere")+"\n")
			}},
		{name: "parent young at the check", cwd: "ws/a/b",
			young: func(t *testing.T, b string) { write(t, filepath.Join(b, "ws/a/fresh"), "x") },
			then:  func(t *testing.T, b string) { s53fRepo(t, filepath.Join(b, "ws/a"), false) }},
		{name: "settled repository moved in above", cwd: "ws/a/b", dirs: []string{"old"},
			setup: func(t *testing.T, b string) { s53fRepo(t, filepath.Join(b, "old"), false) },
			then: func(t *testing.T, b string) {
				s53fRename(t, filepath.Join(b, "old/.git"), filepath.Join(b, "ws/a/.git"))
			}},
		{name: "parent renamed, a settled repository renamed in its place", cwd: "ws/p/q", dirs: []string{"evil/q"},
			setup: func(t *testing.T, b string) { s53fRepo(t, filepath.Join(b, "evil"), false) },
			then: func(t *testing.T, b string) {
				s53fRename(t, filepath.Join(b, "ws/p"), filepath.Join(b, "ws/p.old"))
				s53fRename(t, filepath.Join(b, "evil"), filepath.Join(b, "ws/p"))
			}},
		{name: "parent replaced by a symlink", cwd: "ws/p/q", dirs: []string{"evil/q"},
			setup: func(t *testing.T, b string) { s53fRepo(t, filepath.Join(b, "evil"), false) },
			then: func(t *testing.T, b string) {
				s53fRename(t, filepath.Join(b, "ws/p"), filepath.Join(b, "ws/p.old"))
				s53fSymlink(t, filepath.Join(b, "evil"), filepath.Join(b, "ws/p"))
			}},
		{name: "symlinked parent retargeted", cwd: "ws/link/q", dirs: []string{"real/q", "evil/q"},
			setup: func(t *testing.T, b string) {
				s53fRepo(t, filepath.Join(b, "evil"), false)
				s53fSymlink(t, filepath.Join(b, "real"), filepath.Join(b, "ws/link"))
			},
			then: func(t *testing.T, b string) { s53fSymlink(t, filepath.Join(b, "evil"), filepath.Join(b, "ws/link")) }},
		{name: "symlinked parent's target gains .git", cwd: "ws/link/q", dirs: []string{"real/q"},
			setup: func(t *testing.T, b string) { s53fSymlink(t, filepath.Join(b, "real"), filepath.Join(b, "ws/link")) },
			then:  func(t *testing.T, b string) { s53fRepo(t, filepath.Join(b, "real"), false) }},
		{name: "cwd removed and made again with .git", cwd: "ws/a/b",
			then: func(t *testing.T, b string) {
				if err := os.Remove(filepath.Join(b, "ws/a/b")); err != nil {
					t.Fatal(err)
				}
				s53fRepo(t, filepath.Join(b, "ws/a/b"), false)
			}},
	}
	type world struct{ base, ws string }
	worlds := make([]world, len(scenarios))
	for i, s := range scenarios {
		worlds[i].base, worlds[i].ws = s53fMake(t, s.dirs, s.setup, s.cwd)
	}
	// The same second: nothing has settled, a repository appears at once.
	for _, s := range scenarios {
		t.Run("fresh/"+s.name, func(t *testing.T) {
			base, ws := s53fMake(t, s.dirs, s.setup, s.cwd)
			cwd := filepath.Join(base, s.cwd)
			s53fGit(t, "before", ws, cwd, Allow)
			s53fGit(t, "before, again", ws, cwd, Allow)
			s.then(t, base)
			s53fGit(t, "after", ws, cwd, Prompt)
		})
	}
	time.Sleep(anchorAge + 100*time.Millisecond)
	for i, s := range scenarios {
		t.Run("settled/"+s.name, func(t *testing.T) {
			base, ws := worlds[i].base, worlds[i].ws
			cwd := filepath.Join(base, s.cwd)
			if s.young != nil {
				s.young(t, base)
			}
			s53fGit(t, "before", ws, cwd, Allow)
			s53fGit(t, "before, again (cached)", ws, cwd, Allow)
			repoCache.Lock()
			_, cached := repoCache.m[cwd]
			repoCache.Unlock()
			if !cached {
				t.Errorf("the review of %s was not cached: the attack below tests nothing of the cache", cwd)
			}
			s.then(t, base)
			s53fGit(t, "after", ws, cwd, Prompt)
			s53fGit(t, "after, again", ws, cwd, Prompt)
		})
	}
}

// TestS53fRepoCacheUnderToggling: checks run while a settled hostile
// .git is renamed in and out of the cwd's parent; whatever the checks
// cached meanwhile, the check after the last rename sees where it is,
// also once the parent has settled into an anchor.
func TestS53fRepoCacheUnderToggling(t *testing.T) {
	base, ws := s53fMake(t, []string{"hold"}, func(t *testing.T, b string) { s53fRepo(t, filepath.Join(b, "hold"), false) }, "ws/a/b")
	cwd := filepath.Join(base, "ws/a/b")
	in, out := filepath.Join(base, "ws/a/.git"), filepath.Join(base, "hold/.git")
	time.Sleep(anchorAge + 100*time.Millisecond)
	for round := range 2 {
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				select {
				case <-stop:
					return
				default:
					Check("git status", Options{WorkspaceRoot: ws, Cwd: cwd, Files: OSFiles{}})
				}
			}
		}()
		for i := range 200 {
			if i%2 == 0 {
				s53fRename(t, out, in)
			} else {
				s53fRename(t, in, out)
			}
			if i%100 == 50 {
				time.Sleep(anchorAge + 100*time.Millisecond) // let the parent settle into an anchor now and then
			}
		}
		close(stop)
		<-done
		// 200 renames leave .git out of the parent; once it settles, the
		// check below is cached with the parent as an anchor.
		time.Sleep(anchorAge + 100*time.Millisecond)
		s53fGit(t, "after the renames, .git out", ws, cwd, Allow)
		s53fRename(t, out, in)
		s53fGit(t, "renamed in", ws, cwd, Prompt)
		if round == 0 {
			s53fRename(t, in, out)
			s53fGit(t, "renamed out", ws, cwd, Allow)
		}
	}
}

#!/usr/bin/env python3
"""mutate.py ROOT PKGDIR LIST OUT [TIMEOUT]: apply each mutant of LIST (lines
'TYPE FILE:LINE:COL', FILE relative to PKGDIR) in place under ROOT (a module
directory of a scratch worktree: the files are changed while a test runs),
run `go test -count=1 -failfast ./PKGDIR/` (MUT_ARGS adds flags, such as
-skip of slow tests), restore the file, and append 'STATUS TYPE FILE:LINE:COL'
to OUT (KILLED, LIVED, NOTVIABLE, TIMEOUT; a mutant already in OUT is not run
again). LIST comes from gremlins' dry run:
  gremlins unleash --dry-run ./PKGDIR | awk '/RUNNABLE/ {print $2, $4}'
gremlins' own run copies the module out of go.work, where `replace ../shared`
does not resolve, and counts every failed build as a kill (docs/mutations.md,
stop 67)."""
import subprocess, sys, os
root, pkg, lst, out = sys.argv[1:5]
timeout = int(sys.argv[5]) if len(sys.argv) > 5 else 120
swap = {
 "CONDITIONALS_NEGATION": {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"},
 "CONDITIONALS_BOUNDARY": {"<": "<=", "<=": "<", ">": ">=", ">=": ">"},
 "ARITHMETIC_BASE": {"+": "-", "-": "+", "*": "/", "/": "*", "%": "*"},
 "INCREMENT_DECREMENT": {"++": "--", "--": "++"},
 "INVERT_NEGATIVES": {"-": "+"},
}
env = dict(os.environ, GOEXPERIMENT="simd")
done = set()
if os.path.exists(out):
    done = {l.split(" ", 1)[1].strip() for l in open(out) if l.strip()}
for line in open(lst):
    line = line.strip()
    if not line or line in done:
        continue
    typ, pos = line.split()
    f, ln, col = pos.rsplit(":", 2)
    path = os.path.join(root, pkg, f)
    src = open(path, "rb").read()
    lines = src.split(b"\n")
    l = lines[int(ln) - 1].decode()
    c = int(col) - 1
    tok = next((t for t in sorted(swap[typ], key=len, reverse=True) if l[c:c+len(t)] == t), None)
    if tok is None:
        open(out, "a").write(f"SKIPPED {line}\n"); continue
    lines[int(ln) - 1] = (l[:c] + swap[typ][tok] + l[c+len(tok):]).encode()
    open(path, "wb").write(b"\n".join(lines))
    try:
        r = subprocess.run(["go", "test", "-count=1", "-failfast"] + os.environ.get("MUT_ARGS", "").split() + ["./" + pkg + "/"], cwd=root, env=env,
                           capture_output=True, text=True, timeout=timeout)
        o = r.stdout + r.stderr
        if r.returncode == 0:
            st = "LIVED"
        elif "[build failed]" in o or "setup failed" in o:
            st = "NOTVIABLE"
        else:
            st = "KILLED"
    except subprocess.TimeoutExpired:
        st = "TIMEOUT"
    finally:
        open(path, "wb").write(src)
    open(out, "a").write(f"{st} {line}\n")

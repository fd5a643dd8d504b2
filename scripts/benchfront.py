# benchfront.py: what the front-end start benchmarks share (bench-front-call,
# bench-front-more, bench-front-start, bench-front-tasks, bench-session-start
# import it from beside them): the environment they run demiurge in, one timed
# run, the interleaved rounds and the p50 report.
import os, time, subprocess, statistics, tempfile

med = statistics.median

def bench_env(home=True):
    """The environment: the long-lived host on (DEMIURGE_HOST unset), and a
    fresh HOME unless home is False."""
    env = dict(os.environ)
    env.pop("DEMIURGE_HOST", None)
    if home:
        env["HOME"] = tempfile.mkdtemp()
    return env

def timed(argv, env, cwd=None, stdin=subprocess.DEVNULL, check=True):
    """Run argv to its end, output discarded; its wall and CPU (user+sys)
    in ms. check: a non-zero exit stops the benchmark."""
    t = time.perf_counter()
    p = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
    _, status, ru = os.wait4(p.pid, 0)
    w = time.perf_counter() - t
    assert not check or os.waitstatus_to_exitcode(status) == 0, argv
    return w * 1000, (ru.ru_utime + ru.ru_stime) * 1000

def interleaved(cases, rounds, run, warm=None):
    """One warm run of each case (by warm, else run), then rounds rounds of
    every case in turn: {case: ([wall], [cpu])}. run(case's value) returns
    (wall, cpu)."""
    res = {k: ([], []) for k in cases}
    for a in cases.values():
        (warm or run)(a)
    for _ in range(rounds):
        for k, a in cases.items():
            w, c = run(a)
            res[k][0].append(w)
            res[k][1].append(c)
    return res

def report(res, rounds, width):
    """The load, then every case's wall and CPU p50."""
    print("load", open("/proc/loadavg").read().split()[:3], "rounds", rounds)
    for k in res:
        print(f"{k:{width}s} wall p50 {med(res[k][0]):7.1f} ms  cpu p50 {med(res[k][1]):7.1f} ms")

def ratios(res, a, b):
    """Case a's p50 over case b's: (wall, cpu)."""
    return med(res[a][0]) / med(res[b][0]), med(res[a][1]) / med(res[b][1])

"""The long variant of ``tests/engine/test_load.py`` (every corpus case, registry example and theorem) spread over
a many-core machine's CPUs, so it ends in minutes: the items cut into P groups (P = CPUs / 2); for each group, one
process decides it forward then reversed on one CPU, and 8 processes with their own hash seeds decide it at once on
another CPU (8x oversubscription); then everything is compared as the test compares it.

    python -m tests.support.load_spread
"""

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.support.load_compare import LOAD, collect, compare, start  # noqa: E402


def main() -> None:
    cpus = sorted(os.sched_getaffinity(0))
    P = len(cpus) // 2
    L = LOAD
    t0 = time.time()
    one_p = []
    loaded_p = []
    for g in range(P):
        one_p.append(start("all", f"{g}/{P}", "forward,reverse", 1 + g, cpus[2 * g]))
        loaded_p += [start("all", f"{g + P * j}/{P * L}", "forward", 100 + g * L + j, cpus[2 * g + 1])
                     for j in range(L)]
    loaded = collect(loaded_p)
    t1 = time.time()
    one = collect(one_p)
    t2 = time.time()
    print(f"{P} groups on {len(cpus)} CPUs; items: {len(one['forward'])} (loaded: {len(loaded['forward'])}); "
          f"loaded shards done at {t1-t0:.0f} s, one-process runs at {t2-t0:.0f} s", flush=True)
    runs = {"one process, in order": one["forward"], "the same process, reversed": one["reverse"],
            f"{L} processes on one CPU": loaded["forward"]}
    compare(runs)
    print("PASSED: same answers in every run; the safety net never fired")


if __name__ == "__main__":
    main()

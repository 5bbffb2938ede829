"""The cost of can_implement's symbolic run (verifier/library/can_implement.py), per key: the batch's symbolic
program compiled (in a fresh cache, so that g++ runs), every path explored, and the comparison with the
hand-read condition; wall and CPU seconds (the machine is shared: CPU time is what a key costs).

    python bench/library_can_implement.py [NAME ...]   # default: the keys of tests/library/test_can_implement.py
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*")
    args = parser.parse_args(argv)
    from tests.library.test_can_implement import KEYS
    from verifier.library import can_implement, derive
    from verifier.library.configs import enumerate_gemms
    from verifier.library.keys import group
    from verifier.library.verify import NO_OVERFLOW, acceptance, checks_epilogue_alignment

    names = args.names or list(KEYS)
    instances, fields = [], []
    for name in names:
        e = enumerate_gemms("90a", name)
        (g,) = group(e.configs, "tool", "4.2.0")
        instances.append(derive.Instance(name, e.source(name)))
        fields.append(g.fields)
    shown = derive.derive_many(instances)  # the derive phase's program (cached: not measured)
    out: dict[str, Any] = {"keys": len(names)}
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["CUTE_VERIFY_CACHE"] = tmp
        w, c = time.monotonic(), _cpu()
        can_implement.compile_batch([instances[0]])
        out["compile_one_key"] = {"wall": round(time.monotonic() - w, 2), "cpu": round(_cpu() - c, 2)}
        w, c = time.monotonic(), _cpu()
        can_implement.compile_batch(instances)
        out["compile_batch"] = {"wall": round(time.monotonic() - w, 2), "cpu": round(_cpu() - c, 2)}
        per: list[dict[str, Any]] = []
        for k, d in enumerate(shown):
            strides = {x: str(d[f"STRIDE_{x}"]) for x in can_implement.OPERANDS}
            w, c = time.monotonic(), _cpu()
            der = can_implement.derive_acceptance(instances, k, strides)
            explored = {"wall": round(time.monotonic() - w, 2), "cpu": round(_cpu() - c, 2)}
            w, c = time.monotonic(), _cpu()
            hand = acceptance(fields[k], strides, checks_epilogue_alignment(d))
            equal = all(v["equal"] for v in can_implement.compare(der, hand, 1).values())
            can_implement.compare(der, hand, 0)
            can_implement.undefined(der)
            within = can_implement.undefined(der, 1, [*hand, *NO_OVERFLOW])
            compared = {"wall": round(time.monotonic() - w, 2), "cpu": round(_cpu() - c, 2)}
            per.append({"key": names[k], "paths": {m: len(ma.paths) for m, ma in der.modes.items()},
                        "runs": sum(ma.runs for ma in der.modes.values()), "explore": explored,
                        "compare": compared, "equal_to_hand_read": equal,
                        "reads_strides": can_implement.reads_strides(der),
                        "undefined_where_hand_read_defined": [(u["can_implement"], u["witness"]) for u in within]})
        out["per_key"] = per
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Keys per mainloop policy of a CUTLASS library sweep (docs/library.md, "Keys per mainloop policy").

The keys are grouped into families by the generator's fields the collective builders dispatch on (the GEMM kind, the
kernel schedule, a mixed-input mode, tf32 with an MN-major A on SM90, a sub-byte operand); one key of each family
(its first, in the generator's order) is compiled, in one program an architecture, and its mainloop's dispatch
policy printed by compiled CUTLASS (``type_name<X_mainloop::DispatchPolicy>``: the collective alone, no kernel, no
derive): a few minutes for SM90 ``all`` + SM100 ``all`` (59 families) where deriving every key would take hours.
That a family's keys share their sample's policy is the reading of the builders' dispatch (which reads those fields
and the alignment: an SM90 ``ScheduleAuto`` key with a small alignment could pick cp.async; ``--check N`` compiles N
more keys a family and reports any that differ).

    python bench/library_families.py [--arch 90a --arch 100a] [--kernels all] [--check N] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from verifier.library import configs as cfg
from verifier.library import derive, epilogue_cpp
from verifier.oracle import cute_cpp

# Element names of 4- and 6-bit types (the runtime ``f4``/``f6`` types included; a block-scaled name such as
# ``ue8m0xe2m1`` is its scale and its data type).
SUB_BYTE = {"e2m1", "e3m2", "e2m3", "f4", "f6", "s4", "u4", "s2", "u2", "s1", "u1"}


def sub_byte(name: str) -> bool:
    return any(part in SUB_BYTE for part in str(name).split("x"))


def family(f: dict[str, Any]) -> tuple[str, ...]:
    rmem_a = f["arch"].startswith("90") and f["element_a"] in ("tf32", "f32") and f["layout_a"] == "ColumnMajor"
    mixed = f["mixed_input"] not in ("", "None", "none")
    return (f["arch"], f["gemm_kind"], f["kernel_schedule"], "mixed input" if mixed else "",
            "MN-major tf32 A" if rmem_a else "", "sub-byte" if sub_byte(f["element_a"]) or sub_byte(f["element_b"])
            else "")


# Which policies ``verify_key`` derives (verify.SUPPORTED_MAINLOOPS, sm90_cpasync.POLICY, sm100.MAINLOOPS), and the
# family flags that keep a key of a derived policy out (sm100.not_derived: a 4- or 6-bit operand).
def derived(policy: str, fam: tuple[str, ...]) -> bool:
    from verifier.library import sm90_cpasync, sm100
    from verifier.library.verify import SUPPORTED_MAINLOOPS

    name = f"{policy}<"
    if name.startswith(sm100.MAINLOOPS):
        return fam[5] != "sub-byte"
    return name.startswith((*SUPPORTED_MAINLOOPS, sm90_cpasync.POLICY))


def policies(arch: str, samples: list[tuple[int, str, str]]) -> dict[int, str]:
    """Compile the samples' instances (index, kernel name, C++) into one program printing each mainloop's policy."""
    lines = [derive.PRELUDE, epilogue_cpp.CPP]
    mains = []
    for i, name, source in samples:
        lines.append(f"namespace s{i} {{\n{source}\n}}")
        mains.append(f'  printf("@@POLICY {i} %s\\n", type_name<typename s{i}::{name}_mainloop::DispatchPolicy>()'
                     ".c_str());")
    lines.append("int main() {\n" + "\n".join(mains) + "\n}\n")
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = Path(tmp) / f"policy_{arch}.cpp", Path(tmp) / f"policy_{arch}"
        src.write_text("\n".join(lines))
        flags = [f"-I{cute_cpp.cute_include()}", *(f"-I{p}" for p in cute_cpp.cuda_includes()), *derive.FLAGS]
        subprocess.run([cute_cpp.compiler(), "-std=c++17", "-O0", "-w", *flags, str(src), "-o", str(exe)],
                       check=True)
        out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    found = {}
    for line in out.splitlines():
        m = re.match(r"@@POLICY (\d+) (.*)$", line)
        if m:
            found[int(m.group(1))] = m.group(2).split("<")[0]
    return found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arch", action="append", default=None)
    ap.add_argument("--kernels", default="all")
    ap.add_argument("--check", type=int, default=0, help="compile N more keys a family and compare their policies")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    from verifier.library.keys import group

    report: dict[str, Any] = {"families": []}
    for arch in args.arch or ["90a", "100a"]:
        start = time.process_time()
        e = cfg.enumerate_gemms(arch, args.kernels)
        fams: dict[tuple[str, ...], list[tuple[str, int]]] = defaultdict(list)
        for g in group(e.configs, "-", "-"):
            if g.fields["is_3x"]:
                fams[family(g.fields)].append((g.representative, len(g.configs)))
        order = sorted(fams)
        samples = []
        for i, fam in enumerate(order):
            for j, (rep, _) in enumerate(fams[fam][:1 + args.check]):
                samples.append((i * 1000 + j, rep, e.source(rep)))
        got = policies(arch, samples)
        for i, fam in enumerate(order):
            seen = Counter(got.get(i * 1000 + j, "?") for j in range(min(len(fams[fam]), 1 + args.check)))
            policy = got.get(i * 1000, "?")
            report["families"].append({
                "arch": arch, "gemm_kind": fam[1], "kernel_schedule": fam[2],
                "flags": [x for x in fam[3:] if x], "keys": len(fams[fam]),
                "configurations": sum(n for _, n in fams[fam]), "policy": policy,
                "derived": derived(policy, fam), "sample": fams[fam][0][0],
                "policies_checked": dict(seen)})
        print(f"{arch}: {len(order)} families, {time.process_time() - start:.1f} s CPU here", file=sys.stderr)
    by_policy: dict[tuple[str, str, bool], int] = Counter()
    for r in report["families"]:
        by_policy[(r["arch"], r["policy"] + (" (sub-byte)" if "sub-byte" in r["flags"] else ""), r["derived"])] += \
            r["keys"]
    report["by_policy"] = [{"arch": a, "policy": p, "derived": dv, "keys": n}
                           for (a, p, dv), n in sorted(by_policy.items(), key=lambda kv: (kv[0][0], -kv[1]))]
    for r in report["by_policy"]:
        print(f"| {r['arch']} | `{r['policy'].removeprefix('cutlass::gemm::')}` | {r['keys']:,} | "
              f"{'derived' if r['derived'] else 'not derived'} |")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

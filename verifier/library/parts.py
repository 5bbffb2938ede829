"""The pieces of a key's layout problems shared by the mainloops' and the epilogue's modules (``verify``,
``sm100``, ``sm90_cpasync``, ``epilogue``, ``can_implement``): CUTLASS's printed types read as model text, one pipeline
stage of an smem layout, a problem as plain data, and ``can_implement``'s hand-read condition with its sources."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from verifier.algebra.registry import apply
from verifier.core.symbols import Symbols
from verifier.run import problems

INT32_MAX = 2**31 - 1
# Where can_implement's acceptance condition is read from (CUTLASS 4.2): the kernel's conjunction, the mainloop's
# and the epilogue's alignment checks, and check_alignment itself.
ACCEPTANCE_SOURCES = (
    "cutlass/gemm/kernel/sm90_gemm_tma_warpspecialized_cooperative.hpp:266-278",
    "cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp:244-261",
    "cutlass/epilogue/collective/sm90_epilogue_tma_warpspecialized.hpp:324-350",
    "cutlass/detail/layout.hpp:399-415",
)
ACCEPTANCE_NOTE = (
    "check_alignment<N>(shape, StrideX{}) tests the extent of the unit-stride mode (size(shape) == N * "
    "size(upcast<N>(layout))) and the dynamic strides of a default-constructed StrideX{}, which are 0: the "
    "strides the user passes are never checked. size(shape) is a product of int extents: it must not overflow "
    "(signed overflow is undefined), so the condition holds where M*K*L, N*K*L and M*N*L fit in int.")
BITS = {"f16": 16, "bf16": 16, "f32": 32, "tf32": 32, "f64": 64, "s8": 8, "u8": 8, "s32": 32, "e4m3": 8,
         "e5m2": 8, "void": 0, "s4": 4, "u4": 4, "e2m1": 4, "e3m2": 6, "e2m3": 6, "ue8m0": 8, "ue4m3": 8}
def top_args(text: str) -> list[str]:
    inner = text[text.index("<") + 1:text.rindex(">")]
    out, depth, cur = [], 0, ""
    for ch in inner:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return out


def stride(type_text: str, names: Sequence[str]) -> tuple[str, list[str | int]]:
    """A stride type printed by CUTLASS (``cute::tuple<long int, cute::C<1>, long int>``) as model text over
    ``names`` (a dynamic leaf is a 64-bit symbol), and each mode's query value (a name, or the static value)."""
    parts: list[str] = []
    values: list[str | int] = []
    for arg, name in zip(top_args(type_text), names):
        m = re.fullmatch(r"cute::C<(-?\d+)>", arg)
        parts.append(f"_{m.group(1)}" if m else name)
        values.append(int(m.group(1)) if m else name)
    return f"({','.join(parts)})", values


def problem(name: str, op: str, args: Sequence[str], names: Sequence[str] | None,
            assume: Sequence[str]) -> dict[str, Any]:
    """A layout problem as plain data: the check's op and operands' text, its symbols (``names``: the stride
    symbols beside M, N, K, L; None for a problem without symbols) and its assumptions."""
    return {"name": name, "op": op, "args": list(args), "names": None if names is None else list(names),
            "assume": list(assume)}


T = TypeVar("T")
_MISSING = object()
_KEYS = "\0keys"  # a read of which keys a mapping holds (iterating it, its length)


class _Reading(Mapping[str, Any]):
    """A mapping that records every key looked up in it (present or not); iterating it, or its length, reads which
    keys it holds (``_KEYS``) and their values."""

    def __init__(self, data: Mapping[str, Any], read: set[str]) -> None:
        self._data, self._read = data, read

    def __getitem__(self, k: str) -> Any:
        self._read.add(k)
        return self._data[k]

    def __contains__(self, k: object) -> bool:
        if isinstance(k, str):
            self._read.add(k)
        return k in self._data

    def __iter__(self) -> Iterator[str]:
        self._read.update([_KEYS, *self._data])
        return iter(self._data)

    def __len__(self) -> int:
        self._read.add(_KEYS)
        return len(self._data)


# kind -> the sets of (argument, key) its computations read -> the values read there (JSON) -> the answer.
_SHARED: dict[str, dict[tuple[tuple[int, str], ...], dict[str, Any]]] = {}
SHARED_MAX = 4096  # answers kept a kind (a sweep's keys share a few hundred epilogues and smem stages)


def _values(args: Sequence[Any], reads: tuple[tuple[int, str], ...]) -> str:
    """What the arguments hold at ``reads``: each key's presence and value."""
    return json.dumps([sorted(args[i]) if k == _KEYS else [k in args[i], args[i].get(k)] for i, k in reads],
                      sort_keys=True)


_RECORDERS: list[list[dict[str, Any]]] = []


@contextmanager
def recording() -> Iterator[list[dict[str, Any]]]:
    """The ``shared_entry`` of every ``shared`` call made inside (computed or not): what a sweep's derive unit,
    which computes them while it lists a key's problems (``verify.problems_of``), hands on to the key's worker."""
    got: list[dict[str, Any]] = []
    _RECORDERS.append(got)
    try:
        yield got
    finally:
        _RECORDERS.pop()


def shared(kind: str, compute: Callable[..., T], *args: Any) -> T:
    """``compute(*args)``, computed once a process for every call whose arguments agree on what it read: a check
    that reads a few of a key's printed types (``d``: its epilogue's copies and their bank conflicts, an SM100
    operand's smem and descriptor) is the same for the many keys that print the same types.  Each mapping argument
    is given as a ``_Reading``, so the answer is stored under exactly the keys ``compute`` read (and the values
    there, a key's absence included): the same reads take the same path through ``compute`` to the same answer.
    ``compute`` must read nothing else that varies (its other arguments are plain data, part of the key).  A deep
    copy is returned, so that a caller that adds to its answer changes no other key's.  Answers computed in another
    process come in through ``prime`` (a sweep's decide phase computes each once: ``shared_entry``)."""
    answer, name, reads = _shared(kind, compute, args)
    if _RECORDERS:
        _RECORDERS[-1].append({"shared": name, "reads": [list(r) for r in reads], "values": _values(args, reads),
                               "answer": copy.deepcopy(answer)})
    return copy.deepcopy(answer)


def _shared(kind: str, compute: Callable[..., T], args: Sequence[Any]) -> tuple[T, str, tuple[tuple[int, str], ...]]:
    """The answer, the memo's name of (kind, plain arguments), and the reads it is stored under."""
    plain = json.dumps([a for a in args if not isinstance(a, Mapping)], sort_keys=True)
    name = f"{kind}\0{plain}"
    found = _SHARED.setdefault(name, {})
    for reads, answers in found.items():
        got = answers.get(_values(args, reads), _MISSING)
        if got is not _MISSING:
            return got, name, reads
    read: list[set[str]] = [set() for _ in args]
    answer = compute(*[_Reading(a, read[i]) if isinstance(a, Mapping) else a for i, a in enumerate(args)])
    reads = tuple(sorted((i, k) for i, r in enumerate(read) for k in r))
    answers = found.setdefault(reads, {})
    if len(answers) >= SHARED_MAX:
        answers.clear()
    answers[_values(args, reads)] = answer
    return answer, name, reads


def shared_entry(kind: str, compute: Callable[..., Any], *args: Any) -> dict[str, Any]:
    """``shared``'s answer for ``args`` as plain data, with what it was read from: what ``prime`` adds to another
    process's memo, where it answers every call that agrees with ``args`` on those reads (and only those)."""
    answer, name, reads = _shared(kind, compute, args)
    return {"shared": name, "reads": [list(r) for r in reads], "values": _values(args, reads),
            "answer": copy.deepcopy(answer)}


def prime(entry: Mapping[str, Any]) -> None:
    """Add an answer ``shared_entry`` gave (in this process or another) to this process's memo."""
    reads = tuple((int(i), str(k)) for i, k in entry["reads"])
    answers = _SHARED.setdefault(str(entry["shared"]), {}).setdefault(reads, {})
    if len(answers) >= SHARED_MAX:
        answers.clear()
    answers[str(entry["values"])] = copy.deepcopy(entry["answer"])


STAGE = "smem stage"


def stage(atom: str, blk_r: str, blk_k: str, order: str) -> str:
    """One pipeline stage of the smem layout, as the TMA box and the GMMA descriptor see it: the atom tiled to
    (BLK_R, BLK_K) in the same order (stage 0 of the staged layout, whose stage mode is outermost), with its
    smem_ptr flag (a ``slice`` of the staged layout would turn the flag into its offset).  A function of its
    text arguments, computed once a process (``shared``: ``tile_to_shape`` checks its result at every
    coordinate, seconds), and handed on from a sweep's driver (``recording``)."""
    return shared(STAGE, _stage, atom, blk_r, blk_k, order)


def _stage(atom: str, blk_r: str, blk_k: str, order: str) -> str:
    two = "(" + ",".join(order.strip("()").split(",")[:2]) + ")"
    return str(apply("tile_to_shape", *problems.operands("tile_to_shape", [atom, f"({blk_r},{blk_k})", two],
                                                         Symbols())).result)


def order(stride_type: str) -> str:
    # sm90_mma_tma_gmma_ss_warpspecialized.hpp:131: MN-major (unit stride in mode 0) tiles K first.
    first = top_args(stride_type)[0]
    return "(_2,_1,_3)" if first == "cute::C<1>" else "(_1,_2,_3)"


def acceptance(fields: Mapping[str, Any], strides: Mapping[str, str], epilogue: bool = True) -> list[str]:
    """``can_implement``'s acceptance condition, read by hand (``ACCEPTANCE_SOURCES``), over M, N, K, L: per
    operand, the extent of its unit-stride mode divisible by 128 bits' worth of elements, and no int overflow of
    ``size(shape)``; C's and D's only where the epilogue checks them (``epilogue``: ``checks_epilogue_alignment``)."""
    conds: list[str] = []
    extents = {"A": ("M", "K", "L"), "B": ("N", "K", "L"), "C": ("M", "N", "L"), "D": ("M", "N", "L")}
    for x in ("A", "B", "C", "D") if epilogue else ("A", "B"):
        bits = BITS.get(str(fields[f"element_{x.lower()}"]), 0)
        if not bits or x not in strides:
            continue
        unit = [i for i, a in enumerate(top_args(strides[x])) if a == "cute::C<1>"]
        if unit:
            conds.append(f"{extents[x][unit[0]]} % {128 // bits} == 0")
    return sorted(set(conds))


# can_implement's condition also needs size(shape) not to overflow int (``ACCEPTANCE_NOTE``). These products are
# reported with the condition but not assumed in the solver's queries (non-linear: they exhaust its budget); a
# compiled replay whose witness breaks them runs at the smallest admitted extents instead (the TMA findings
# depend on the strides only), and says so.
NO_OVERFLOW = ("M*K*L <= 2147483647", "N*K*L <= 2147483647", "M*N*L <= 2147483647")


def smallest(accept: Sequence[str]) -> list[int]:
    """The smallest (M, N, K, L) the divisibility conjuncts of ``accept`` admit."""
    out = {"M": 1, "N": 1, "K": 1, "L": 1}
    for c in accept:
        m = re.fullmatch(r"([MNKL]) % (\d+) == 0", c)
        if m:
            out[m.group(1)] = max(out[m.group(1)], int(m.group(2)))
    return [out[s] for s in ("M", "N", "K", "L")]

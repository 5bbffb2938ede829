"""Shared-memory bank conflicts: a stated hardware model, exact counting, and the claim the engine proves.

The model (NVIDIA shared memory since Volta; the one CUTLASS's swizzles are designed for)
-----------------------------------------------------------------------------------------
* Shared memory has 32 banks of 4 bytes: byte address ``a`` lies in word ``a / 4`` of bank ``(a / 4) % 32``.
* One instruction of a warp is served in *phases*.  An access of ``W`` bits per thread moves ``32*W`` bits, at
  most 128 bytes (one word per bank) per phase: ``W <= 32`` is one phase of all 32 threads, ``W == 64`` two
  phases of 16 threads (threads 0-15, 16-31), ``W == 128`` four phases of 8 threads.  ``ldmatrix`` is the 128-bit
  case: each 8x8 b16 matrix is 8 rows of 16 bytes, one phase per matrix, the 8 row addresses given by 8 threads.
* Within a phase, threads that touch the same word are served together (broadcast, and sub-word accesses to one
  word merge); distinct words in one bank are served one per *wavefront*.  The phase takes as many wavefronts as
  the most distinct words any bank holds, and is conflict-free when that is 1.
* A thread's ``W`` bits are contiguous in memory from the address of its first element and naturally aligned
  (bit address ``% W == 0``, as vector shared-memory instructions require; sub-byte elements included): a
  ``W >= 32`` access covers the ``W/32`` consecutive words from ``a / 4``.

The access pattern: ``SMEM`` maps a tile coordinate to an element offset (a layout, or a swizzled / composed
layout); ``ACCESS`` maps the thread index of one instruction to the 1-D tile coordinate of its first element; an
optional ``offset`` (a stage's or a k-block's coordinate offset, symbolic allowed) is added to every thread's
coordinate.  Thread ``t`` accesses the byte of element ``ACCESS(t) + offset`` of the tensor
``make_tensor(make_smem_ptr(p), SMEM)`` over a buffer aligned above the swizzle's bits: ``(element_bits/8) *
SMEM(c)`` for a layout, and for a flagged ``Sw o smem_ptr[Bb](unset) o L`` (how CuTe prints the GMMA/UMMA atoms)
``Sw((B/8) * L(c))``: that tensor is a ``swizzle_ptr``, whose swizzle XORs the byte address
(pointer_flagged.hpp:57-66, pointer_swizzle.hpp:86-87), and ``B`` must be the element width (a
``static_assert``, else bad input).

``conflict_free`` is proved for every admitted value of the symbols (tile extents, the stage index in ``offset``)
and every pair of threads in one phase, or refuted with the two threads, their byte addresses and the bank
(``checks.py`` decides the claims of ``claims_for`` with the engine); ``wavefronts`` counts concretely.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from verifier.core.errors import CuteRejection, LayoutError
from verifier.core.integers import Bool, D, Int, and_, eq, ge, or_, symbol
from verifier.core.layouts import Layout
from verifier.core.swizzle import ComposedLayout, smem_bit_address

BANKS = 32
BANK_BYTES = 4
WARP = 32
ACCESS_BITS = (8, 16, 32, 64, 128)


@dataclass(frozen=True)
class AccessModel:
    """Element and access widths of one shared-memory instruction, with the phases they imply."""

    element_bits: int
    access_bits: int

    def __post_init__(self) -> None:
        if self.access_bits not in ACCESS_BITS:
            raise LayoutError(f"--access-bits must be one of {', '.join(map(str, ACCESS_BITS))}, got "
                              f"{self.access_bits}")
        if self.element_bits < 1 or self.element_bits & (self.element_bits - 1):
            raise LayoutError(f"--element-bits must be a power of two, got {self.element_bits}")
        if self.access_bits % self.element_bits:
            raise LayoutError(f"an access of {self.access_bits} bits holds no whole number of {self.element_bits}-bit "
                              "elements")

    @property
    def element_bytes(self) -> int:
        """Bytes per element (0 for sub-byte elements, which are addressed in bits)."""
        return self.element_bits // 8

    @property
    def access_bytes(self) -> int:
        return self.access_bits // 8

    @property
    def threads_per_phase(self) -> int:
        """32 threads for accesses up to 32 bits, 16 for 64 bits, 8 for 128 bits: 128 bytes per phase."""
        return WARP * 32 // max(32, self.access_bits)

    @property
    def words_per_thread(self) -> int:
        return max(1, self.access_bits // 32)

    def describe(self) -> str:
        return (f"{self.element_bits}-bit elements, {self.access_bits}-bit accesses: {WARP // self.threads_per_phase}"
                f" phase(s) of {self.threads_per_phase} threads, {BANKS} banks of {BANK_BYTES} bytes")


def address(smem: object, access: Layout, t: Int, model: AccessModel, offset: Int | None = None) -> Int:
    """The byte address thread ``t`` starts at (``bit_address / 8``)."""
    return bit_address(smem, access, t, model, offset) / D(8)


def bit_address(smem: object, access: Layout, t: Int, model: AccessModel, offset: Int | None = None) -> Int:
    """The bit address thread ``t`` starts at: that of element ``ACCESS(t) + offset`` of
    ``make_tensor(make_smem_ptr(p), SMEM)`` (``swizzle.smem_bit_address``: a flagged ``Sw o smem_ptr[Bb] o L``
    swizzles the byte address, any other layout is ``element_bits * SMEM(c)``)."""
    c = access(t)
    if type(c) is not Int:
        raise LayoutError(f"ACCESS {access} must map a thread to a 1-D tile coordinate (an integer), not {c}")
    if offset is not None:
        c = c + offset
    if not isinstance(smem, (Layout, ComposedLayout)):
        raise LayoutError(f"SMEM must be a layout or a composed layout, not {smem}")
    try:
        bits = smem_bit_address(smem, model.element_bits, c)
    except CuteRejection as exc:
        raise LayoutError(f"make_tensor(make_smem_ptr(p), {smem}) does not compile for {model.element_bits}-bit "
                          f"elements: {exc}") from None
    if type(bits) is not Int:
        raise LayoutError(f"SMEM must map a tile coordinate to an element offset (an integer), not {bits}")
    return bits


def threads(access: Layout) -> Int:
    """The threads of one instruction: at most a warp (the phases are those of one warp's instruction)."""
    n = access.size()
    if n.concrete and int(n) > WARP:
        raise LayoutError(f"ACCESS {access} has {int(n)} threads; one instruction is at most a warp of {WARP}")
    return n


# -- the claims ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BankClaim:
    id: str
    description: str
    ranges: tuple[tuple[str, Int, Int], ...]
    holds: Bool
    expected: Int | None = None
    actual: Int | None = None


def claims_for(smem: object, access: Layout, model: AccessModel, offset: Int | None = None) -> list[BankClaim]:
    """What conflict-freedom means in the model, as universally quantified claims over two threads ``#i < #j``."""
    n = threads(access)
    i, j = symbol("#i"), symbol("#j")
    bi = bit_address(smem, access, i, model, offset)
    ai, aj = bi / D(8), address(smem, access, j, model, offset)
    p = D(model.threads_per_phase)
    same_phase = eq(i / p, j / p)
    collide = []
    for k1 in range(model.words_per_thread):
        for k2 in range(model.words_per_thread):
            wi, wj = ai / D(BANK_BYTES) + D(k1), aj / D(BANK_BYTES) + D(k2)
            same_bank = eq(wi % D(BANKS), wj % D(BANKS))
            collide.append(or_(not_bool(same_bank), eq(wi, wj)))
    return [
        BankClaim("SMEM-ADDR", "every thread's address is a non-negative, naturally aligned shared-memory address "
                  f"(bit address % {model.access_bits} == 0)", (("#i", D(0), n),),
                  and_(ge(bi, D(0)), eq(bi % D(model.access_bits), D(0)))),
        BankClaim("CONFLICT-FREE", f"two threads of one phase ({model.threads_per_phase} threads) that touch one bank "
                  "touch the same 4-byte word: one wavefront per phase",
                  (("#i", D(0), n), ("#j", i + 1, n)), or_(not_bool(same_phase), and_(*collide)), ai, aj),
    ]


def not_bool(b: Bool) -> Bool:
    from verifier.core.integers import not_

    return not_(b)


# -- concrete counting --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Phase:
    """One phase of the instruction: its threads, wavefronts, and the worst bank's distinct words with a thread
    touching each (the witness of a conflict)."""

    index: int
    first_thread: int
    last_thread: int
    wavefronts: int
    bank: int | None
    words: tuple[tuple[int, int], ...]  # (thread, byte address of the word) for each distinct word of ``bank``


def wavefronts(smem: object, access: Layout, model: AccessModel, offset: int = 0) -> list[Phase]:
    """Count, phase by phase, the wavefronts of a concrete access pattern (the brute-force reference)."""
    from verifier.core.integers import S

    if not (access.concrete and getattr(smem, "concrete", False)):
        raise LayoutError("bank_conflicts counts concrete patterns: give --param NAME=VALUE for every symbol")
    n = int(access.size())
    addrs = [int(address(smem, access, S(t), model, S(offset) if offset else None)) for t in range(n)]
    return count(addrs, model)


def count(addrs: list[int], model: AccessModel) -> list[Phase]:
    """Wavefronts per phase for the byte addresses of consecutive threads."""
    p = model.threads_per_phase
    out = []
    for ph, start in enumerate(range(0, len(addrs), p)):
        banks: dict[int, dict[int, int]] = {}
        for t in range(start, min(start + p, len(addrs))):
            for k in range(model.words_per_thread):
                word = addrs[t] // BANK_BYTES + k
                banks.setdefault(word % BANKS, {}).setdefault(word, t)
        worst = max(banks, key=lambda b: (len(banks[b]), -b)) if banks else None
        words = tuple((t, w * BANK_BYTES) for w, t in sorted(banks[worst].items())) if worst is not None else ()
        out.append(Phase(ph, start, min(start + p, len(addrs)) - 1, len(words) if words else 0, worst, words))
    return out


def witness_note(smem: object, access: Layout, model: AccessModel, values: Mapping[str, int],
                 pair: tuple[int, int], offset: Int | None = None) -> str:
    """The colliding threads of a counterexample: their byte addresses, words and bank."""
    from verifier.contracts.claims import substitute_operand
    from verifier.core.integers import S, substitute

    s = substitute_operand(smem, values)
    a = substitute_operand(access, values)
    off = substitute(offset, values) if offset is not None else None
    parts = []
    for t in pair:
        addr = int(address(s, a, S(t), model, off))  # type: ignore[arg-type]
        parts.append(f"thread {t} at byte {addr} (word {addr // BANK_BYTES}, bank {addr // BANK_BYTES % BANKS})")
    return "; ".join(parts) + f"; phase of {model.threads_per_phase} threads"


__all__ = ["ACCESS_BITS", "BANKS", "BANK_BYTES", "AccessModel", "Phase", "address", "bit_address", "claims_for",
           "count", "wavefronts", "witness_note"]

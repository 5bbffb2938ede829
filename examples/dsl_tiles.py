"""A CuTe DSL host function that lays out one CTA's work of a GEMM-style kernel on A (M x K, row-major, fp16,
leading dimension lda): the CTA's 128x32 tile by ``local_tile``, then the same tile seen as 128-bit vectors
(8 halves) for a vectorised copy through ``recast_layout``.

It has one planted layout bug: the vectorised view recasts the tile although nothing says that ``lda`` is a
multiple of 8, so a row of the tile need not start on a 16-byte boundary; for ``lda = 4`` the DSL silently makes
the vector stride 1 instead of 0.5 (``shape_div``) and the copy reads the wrong bytes. ``cute-verify dsl`` finds
it (examples/dsl_tiles_fixed.py has the missing ``cute.assume``):

    cute-verify dsl examples/dsl_tiles.py::cta_tile --arg M=1..16384 --arg K=1..16384 --arg lda=1..16384 \
        --arg bm=0..127 --arg bk=0..511 --assume "bm*128 < M" --assume "bk*32 < K"
"""

import cutlass
import cutlass.cute as cute


@cute.jit
def cta_tile(M: cutlass.Int32, K: cutlass.Int32, lda: cutlass.Int32, bm: cutlass.Int32, bk: cutlass.Int32):
    M = cute.assume(M, divby=128)  # the host pads M and K to whole tiles
    K = cute.assume(K, divby=32)
    ptr = cute.make_ptr(cutlass.Float16, 0, cute.AddressSpace.gmem, assumed_align=16)
    gA = cute.make_tensor(ptr, cute.make_layout((M, K), stride=(lda, 1)))
    tile = cute.local_tile(gA, (128, 32), (bm, bk))  # this CTA's 128x32 tile of A
    vec = cute.recast_layout(128, 16, tile.layout)  # the tile as 128-bit vectors: 8 halves each
    cute.printf("tile {} vectors {}", tile.layout, vec)

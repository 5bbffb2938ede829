"""examples/dsl_tiles.py with its layout bug fixed: ``lda`` is assumed a multiple of 8 (the caller checks it, or
pads the leading dimension), so every row of the tile starts on a 16-byte boundary and the 128-bit view is exact.

    cute-verify dsl examples/dsl_tiles_fixed.py::cta_tile --arg M=1..16384 --arg K=1..16384 --arg lda=1..16384 \
        --arg bm=0..127 --arg bk=0..511 --assume "bm*128 < M" --assume "bk*32 < K"
"""

import cutlass
import cutlass.cute as cute


@cute.jit
def cta_tile(M: cutlass.Int32, K: cutlass.Int32, lda: cutlass.Int32, bm: cutlass.Int32, bk: cutlass.Int32):
    M = cute.assume(M, divby=128)  # the host pads M and K to whole tiles
    lda = cute.assume(lda, divby=8)  # rows start on 16-byte boundaries: what the vector copy needs
    K = cute.assume(K, divby=32)
    ptr = cute.make_ptr(cutlass.Float16, 0, cute.AddressSpace.gmem, assumed_align=16)
    gA = cute.make_tensor(ptr, cute.make_layout((M, K), stride=(lda, 1)))
    tile = cute.local_tile(gA, (128, 32), (bm, bk))  # this CTA's 128x32 tile of A
    vec = cute.recast_layout(128, 16, tile.layout)  # the tile as 128-bit vectors: 8 halves each
    cute.printf("tile {} vectors {}", tile.layout, vec)

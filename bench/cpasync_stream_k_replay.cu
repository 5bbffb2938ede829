// The replay on an H100 of docs/library.md's findings 6 and 7 (the cp.async kernels' residue predication):
// the stream-K cp.async kernel against a host reference, K a multiple of BLK_K or not, one split or several;
// `replay M N K SPLITS` runs one problem (K = 0: mma()'s assert, or the out-of-bounds first stage).
// Build: nvcc -std=c++17 -O2 -arch=sm_90a --expt-relaxed-constexpr -I<cutlass>/include -I<cutlass>/tools/util/include

#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cutlass/cutlass.h>
#include <cute/tensor.hpp>
#include <cutlass/gemm/dispatch_policy.hpp>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/gemm/kernel/gemm_universal.hpp>
#include <cutlass/gemm/kernel/tile_scheduler.hpp>
#include <cutlass/gemm/device/gemm_universal_adapter.h>
#include <cutlass/util/packed_stride.hpp>
#include <cutlass/epilogue/thread/linear_combination.h>


using cutlass3x_sm90_tensorop_gemm_f16_f16_f16_f16_f16_128x128x64_1x1x1_0_tnn_align4_stream_k_cpasync_warpspecialized_cooperative_epi_nosmem_epilogue =
  typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
    cute::Shape<cute::_128, cute::_128, cute::_64>,
    cute::Shape<cute::_1, cute::_1, cute::_1>,
    cutlass::epilogue::collective::EpilogueTileAuto,
    cutlass::half_t, cutlass::half_t,
    cutlass::half_t, cutlass::layout::ColumnMajor, 8,
    cutlass::half_t, cutlass::layout::ColumnMajor, 8,
    cutlass::epilogue::NoSmemWarpSpecialized,
    cutlass::epilogue::fusion::LinearCombination<
      cutlass::half_t,
      cutlass::half_t,
      cutlass::half_t,
      cutlass::half_t
    >
  >::CollectiveOp;




using cutlass3x_sm90_tensorop_gemm_f16_f16_f16_f16_f16_128x128x64_1x1x1_0_tnn_align4_stream_k_cpasync_warpspecialized_cooperative_epi_nosmem_mainloop =
  typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
    cutlass::half_t, cutlass::layout::RowMajor, 4,
    cutlass::half_t, cutlass::layout::ColumnMajor, 4,
    cutlass::half_t,
    cute::Shape<cute::_128, cute::_128, cute::_64>,
    cute::Shape<cute::_1, cute::_1, cute::_1>,
    cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(sizeof(typename cutlass3x_sm90_tensorop_gemm_f16_f16_f16_f16_f16_128x128x64_1x1x1_0_tnn_align4_stream_k_cpasync_warpspecialized_cooperative_epi_nosmem_epilogue::SharedStorage))>,
    cutlass::gemm::KernelCpAsyncWarpSpecializedCooperative
  >::CollectiveOp;

// Gemm operator cutlass3x_sm90_tensorop_gemm_f16_f16_f16_f16_f16_128x128x64_1x1x1_0_tnn_align4_stream_k_cpasync_warpspecialized_cooperative_epi_nosmem
using cutlass3x_sm90_tensorop_gemm_f16_f16_f16_f16_f16_128x128x64_1x1x1_0_tnn_align4_stream_k_cpasync_warpspecialized_cooperative_epi_nosmem_base = cutlass::gemm::kernel::GemmUniversal<
    cute::Shape<int,int,int,int>,
    cutlass3x_sm90_tensorop_gemm_f16_f16_f16_f16_f16_128x128x64_1x1x1_0_tnn_align4_stream_k_cpasync_warpspecialized_cooperative_epi_nosmem_mainloop,
    cutlass3x_sm90_tensorop_gemm_f16_f16_f16_f16_f16_128x128x64_1x1x1_0_tnn_align4_stream_k_cpasync_warpspecialized_cooperative_epi_nosmem_epilogue,
    cutlass::gemm::StreamKScheduler>;

// Define named type
struct cutlass3x_sm90_tensorop_gemm_f16_f16_f16_f16_f16_128x128x64_1x1x1_0_tnn_align4_stream_k_cpasync_warpspecialized_cooperative_epi_nosmem :
  public cutlass3x_sm90_tensorop_gemm_f16_f16_f16_f16_f16_128x128x64_1x1x1_0_tnn_align4_stream_k_cpasync_warpspecialized_cooperative_epi_nosmem_base { };


using Kernel = cutlass3x_sm90_tensorop_gemm_f16_f16_f16_f16_f16_128x128x64_1x1x1_0_tnn_align4_stream_k_cpasync_warpspecialized_cooperative_epi_nosmem;
using Gemm = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;
// One problem: A (MxK, K-major), B (NxK, K-major), D = A B^T (column-major MxN), small integers (exact in f16).
static int run(int M, int N, int K, int splits) {
  using SA = typename Kernel::StrideA; using SB = typename Kernel::StrideB;
  using SC = typename Kernel::StrideC; using SD = typename Kernel::StrideD;
  std::vector<cutlass::half_t> a(size_t(M) * K), b(size_t(N) * K), d(size_t(M) * N);
  for (int m = 0; m < M; ++m) for (int k = 0; k < K; ++k) a[size_t(m) * K + k] = cutlass::half_t(float((m * 3 + k * 5) % 5 - 2));
  for (int n = 0; n < N; ++n) for (int k = 0; k < K; ++k) b[size_t(n) * K + k] = cutlass::half_t(float((n * 7 + k * 3) % 3 - 1));
  cutlass::half_t *da, *db, *dd;
  cudaMalloc(&da, sizeof(cutlass::half_t) * (a.size() + 64)); cudaMalloc(&db, sizeof(cutlass::half_t) * (b.size() + 64));
  cudaMalloc(&dd, sizeof(cutlass::half_t) * d.size());
  cudaMemcpy(da, a.data(), sizeof(cutlass::half_t) * a.size(), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), sizeof(cutlass::half_t) * b.size(), cudaMemcpyHostToDevice);
  cudaMemset(dd, 0, sizeof(cutlass::half_t) * d.size());
  typename Gemm::Arguments args{};
  args.mode = cutlass::gemm::GemmUniversalMode::kGemm;
  args.problem_shape = {M, N, K, 1};
  args.mainloop.ptr_A = da; args.mainloop.dA = cutlass::make_cute_packed_stride(SA{}, {M, K, 1});
  args.mainloop.ptr_B = db; args.mainloop.dB = cutlass::make_cute_packed_stride(SB{}, {N, K, 1});
  args.epilogue.thread.alpha = cutlass::half_t(1); args.epilogue.thread.beta = cutlass::half_t(0);
  args.epilogue.ptr_C = dd; args.epilogue.dC = cutlass::make_cute_packed_stride(SC{}, {M, N, 1});
  args.epilogue.ptr_D = dd; args.epilogue.dD = cutlass::make_cute_packed_stride(SD{}, {M, N, 1});
  cudaGetDevice(&args.hw_info.device_id);
  args.hw_info.sm_count = cutlass::KernelHardwareInfo::query_device_multiprocessor_count(args.hw_info.device_id);
  args.scheduler.splits = splits;
  Gemm gemm;
  int can = int(gemm.can_implement(args) == cutlass::Status::kSuccess);
  size_t ws = Gemm::get_workspace_size(args);
  void* w = nullptr; if (ws) cudaMalloc(&w, ws);
  cutlass::Status st = gemm.initialize(args, w);
  if (st == cutlass::Status::kSuccess) st = gemm.run();
  cudaError_t err = cudaDeviceSynchronize();
  cudaMemcpy(d.data(), dd, sizeof(cutlass::half_t) * d.size(), cudaMemcpyDeviceToHost);
  int wrong = 0; double worst = 0; int first_m = -1, first_n = -1;
  for (int m = 0; m < M; ++m) for (int n = 0; n < N; ++n) {
    float ref = 0;
    for (int k = 0; k < K; ++k) ref += float(a[size_t(m) * K + k]) * float(b[size_t(n) * K + k]);
    float got = float(d[size_t(n) * M + m]);
    if (got != ref) { if (!wrong) { first_m = m; first_n = n; worst = got - ref; } ++wrong; }
  }
  printf("@@RUN M=%d N=%d K=%d splits=%d can_implement=%d status=%d cuda=%s wrong=%d/%d first=(%d,%d) diff=%g\n",
         M, N, K, splits, can, int(st), cudaGetErrorString(err), wrong, M * N, first_m, first_n, worst);
  cudaFree(da); cudaFree(db); cudaFree(dd); if (w) cudaFree(w);
  return wrong;
}
int main(int argc, char** argv) {
  if (argc == 5) { return run(atoi(argv[1]), atoi(argv[2]), atoi(argv[3]), atoi(argv[4])) != 0; }
  int cases[][4] = {{128, 128, 128, 1}, {128, 128, 128, 2}, {128, 128, 72, 1}, {128, 128, 72, 2}, {256, 256, 200, 1},
                    {256, 256, 200, 3}, {128, 128, 68, 2}};
  for (auto& c : cases) run(c[0], c[1], c[2], c[3]);
  return 0;
}

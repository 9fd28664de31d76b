/* What the kernel files of cuda_src/ share, included by each of them.
 *
 * cg_index: element counts and offsets, 64-bit so that sizes past 2^31 index
 * correctly. cg_geometry: the shape and element strides (output and up to two
 * operands, broadcast dims with stride 0) of a strided launch, passed by value;
 * cygrad/cuda/kernels.py packs it (kernels.geometry) with the same layout, and
 * CG_MAX_DIMS is the tensor core's limit (cygrad/_core/cpu/kernels.h).
 *
 * Both drivers compile a .cu file with its folder on the include path, and
 * their kernel caches hash the headers a file includes with its own text. */
#ifndef CG_COMMON_CUH
#define CG_COMMON_CUH

typedef long long cg_index;

#define CG_MAX_DIMS 16

struct cg_geometry {
    int ndim;
    cg_index shape[CG_MAX_DIMS];
    cg_index stride_out[CG_MAX_DIMS];
    cg_index stride_a[CG_MAX_DIMS];
    cg_index stride_b[CG_MAX_DIMS];
};

#endif

/* Stand-in for CUDA's <cuda_bf16.h> in the emulated driver: the emulation header has what it declares. */
#include "cuda_emu.h"

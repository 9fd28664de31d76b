/* What the CG_HOT loops run on (see isa.h). */
#include "isa.h"

int cg_isa_variant(void) {
#if CG_HAS_DISPATCH
    __builtin_cpu_init();
    if (__builtin_cpu_supports("x86-64-v4")) return 4;
    if (__builtin_cpu_supports("x86-64-v3")) return 3;
    return 1;
#else
    return 0;
#endif
}

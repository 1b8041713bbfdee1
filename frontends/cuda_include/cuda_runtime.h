/* What the CUDA reader needs of the CUDA runtime's declarations: the type names (so that
   pycparser reads declarations using them). Kernels, launches and the runtime calls are
   plain calls in C, which needs no prototype for them. */
#ifndef ADSPEC_CUDA_RUNTIME_H
#define ADSPEC_CUDA_RUNTIME_H
#include <stddef.h>
typedef struct { unsigned int x, y, z; } dim3;
typedef struct { unsigned int x, y, z; } uint3;
typedef int cudaError_t;
typedef int cudaMemcpyKind;
#endif

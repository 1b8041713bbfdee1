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
typedef struct cudaStream *cudaStream_t;
typedef struct cudaEvent *cudaEvent_t;
/* the vector types: components x, y, z, w */
typedef struct { float x, y; } float2;
typedef struct { float x, y, z; } float3;
typedef struct { float x, y, z, w; } float4;
typedef struct { double x, y; } double2;
typedef struct { double x, y, z; } double3;
typedef struct { double x, y, z, w; } double4;
typedef struct { int x, y; } int2;
typedef struct { int x, y, z; } int3;
typedef struct { int x, y, z, w; } int4;
typedef struct { unsigned int x, y; } uint2;
typedef struct { unsigned int x, y, z, w; } uint4;
#endif

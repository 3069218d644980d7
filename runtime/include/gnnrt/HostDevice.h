//===- HostDevice.h - Functions CPU and CUDA kernels share -----*- C++ -*-===//
//
// GNNRT_HD marks a header function as a host and device function under nvcc
// and expands to nothing for a host compiler, so the CPU build is unchanged
// and runtime/cpu and runtime/cuda compute with the very same code
// (gnnrt/Philox.h, runtime/common/KernelCommon.h).
//
//===----------------------------------------------------------------------===//
#ifndef GNNRT_HOSTDEVICE_H
#define GNNRT_HOSTDEVICE_H

#ifdef __CUDACC__
#define GNNRT_HD __host__ __device__
#else
#define GNNRT_HD
#endif

#endif // GNNRT_HOSTDEVICE_H

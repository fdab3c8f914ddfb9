// make_device_function: the last step of the GPU lowering. It checks the kernel's thread bindings
// and memory and turns the lowered function into a Device function with its launch extents.
//
// Guarantees (each violation is a located diagnostic at the bind / cache_read that caused it, or
// at the op when the loop came from no primitive):
//  - every thread tag has one constant extent in the kernel (launch.thread_extents lists each
//    tag once, blockIdx.x/y/z then threadIdx.x/y/z; vthread is not a launch extent);
//  - no loop bound to blockIdx.* lies inside a loop bound to threadIdx.*;
//  - no loop is parallel() (a kernel's threads come from its bound loops);
//  - each blockIdx.* extent is at most the target's grid limit along its axis (x 2^31-1, y and z
//    65535 on cuda), each threadIdx.* extent at most its block limit (x, y 1024, z 64);
//  - the threads per block (product of the threadIdx extents) are at most the target's limit;
//  - the `local` buffers of a thread fit in the target's local memory per thread (512 KiB);
//  - the `shared` buffers allocated in the kernel fit in the shared memory of the architecture;
//  - no loop lies outside every bound loop while containing none (it would be run by every
//    thread of the grid): "bind it or fuse it into a bound loop".
#pragma once
#include <map>
#include <string>

#include "ir/Function.h"
#include "ir/SourceLoc.h"
#include "ir/Target.h"

namespace texc {

/// Where the user wrote what a check may complain about.
struct GpuSourceLocs {
  SourceLoc op;                                 // the op (loops no primitive made)
  std::string op_name;
  std::map<std::string, SourceLoc> bind;        // loop name -> the thread tag of its bind()
  std::map<std::string, SourceLoc> cache;       // buffer name -> its cache_read/cache_write
  std::map<std::string, SourceLoc> parallel;    // loop name -> its parallel()
};

LoweredFunc make_device_function(LoweredFunc f, const Target& target, const CudaArch& arch, const GpuSourceLocs& locs);

}  // namespace texc

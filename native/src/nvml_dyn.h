// NVML opened at run time: just enough of nvml.h's types (MIT-licensed layouts) to read device
// memory, names, utilization and per-process memory. No NVML headers or libraries at build time.
#pragma once
#include <cstddef>
#include <vector>

namespace hr {

// An NVML outcome: 0 is success; otherwise NVML's return code and its message (or ours when the
// library or a symbol is missing: code -1).
struct Status {
  int code;
  const char* message;
  bool ok() const { return code == 0; }
};

struct DeviceInfo {
  unsigned index;
  char name[96];
  char uuid[96];
  // From nvmlDeviceGetMemoryInfo_v2 where the driver has it (used then excludes `reserved`, the
  // driver's own share, as nvidia-smi counts), else the v1 call (reserved unknown: hasReserved false).
  unsigned long long total, free, used, reserved;
  bool hasReserved;
  // Percent over the last sample period; -1 when NVML cannot say (a Status per field would be noise).
  int gpuUtil, memUtil;
};

struct ProcessInfo {
  unsigned pid;
  // ~0ULL when NVML does not know (some containers, MIG without permissions).
  unsigned long long used;
};

// dlopen + nvmlInit once; later calls return the cached outcome (a missing driver costs one attempt).
Status Open();
Status DeviceCount(unsigned* count);
Status Device(unsigned index, DeviceInfo* out);
// Every compute process on the device, the buffer sized from NVML's count (never a fixed cap).
Status Processes(unsigned index, std::vector<ProcessInfo>* out);
Status DriverVersion(char* out, size_t size);
// nvmlShutdown + dlclose (the addon's environment is torn down).
void Close();

}  // namespace hr

#include "nvml_dyn.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <vector>

// Bind dl* to their oldest versions: glibc 2.34 moved them into libc with a new default version, and
// a binary that asks for GLIBC_2.34 does not load on RHEL 8 / Ubuntu 20.04 (glibc 2.28 / 2.31).
#if defined(__GLIBC__) && defined(__x86_64__)
__asm__(".symver dlopen,dlopen@GLIBC_2.2.5");
__asm__(".symver dlsym,dlsym@GLIBC_2.2.5");
__asm__(".symver dlerror,dlerror@GLIBC_2.2.5");
__asm__(".symver dlclose,dlclose@GLIBC_2.2.5");
#elif defined(__GLIBC__) && defined(__aarch64__)
__asm__(".symver dlopen,dlopen@GLIBC_2.17");
__asm__(".symver dlsym,dlsym@GLIBC_2.17");
__asm__(".symver dlerror,dlerror@GLIBC_2.17");
__asm__(".symver dlclose,dlclose@GLIBC_2.17");
#endif

namespace hr {
namespace {

typedef int Ret;
typedef struct Device_* Handle;
struct Memory { unsigned long long total, free, used; };
struct MemoryV2 { unsigned version; unsigned long long total, reserved, free, used; };
struct Utilization { unsigned gpu, memory; };
struct ProcessV1 { unsigned pid; unsigned long long used; };
struct ProcessV2 { unsigned pid; unsigned long long used; unsigned gpuInstanceId, computeInstanceId; };

constexpr Ret kInsufficientSize = 7;
constexpr unsigned kMemoryV2 = static_cast<unsigned>(sizeof(MemoryV2)) | (2u << 24);

struct Api {
  void* lib = nullptr;
  Ret (*init)() = nullptr;
  Ret (*shutdown)() = nullptr;
  const char* (*errorString)(Ret) = nullptr;
  Ret (*count)(unsigned*) = nullptr;
  Ret (*handle)(unsigned, Handle*) = nullptr;
  Ret (*name)(Handle, char*, unsigned) = nullptr;
  Ret (*uuid)(Handle, char*, unsigned) = nullptr;
  Ret (*memory)(Handle, Memory*) = nullptr;
  Ret (*memoryV2)(Handle, MemoryV2*) = nullptr;
  Ret (*utilization)(Handle, Utilization*) = nullptr;
  Ret (*processesV3)(Handle, unsigned*, ProcessV2*) = nullptr;
  Ret (*processesV2)(Handle, unsigned*, ProcessV2*) = nullptr;
  Ret (*processesV1)(Handle, unsigned*, ProcessV1*) = nullptr;
  Ret (*driver)(char*, unsigned) = nullptr;
};

Api api;
bool opened = false;
Status openStatus = {-1, "not opened"};
char openMessage[512];

// The newest of the names the library has (NVML keeps old entry points beside _v2/_v3).
template <typename F>
void bind(F* fn, const char* newest, const char* older = nullptr, const char* oldest = nullptr) {
  for (const char* n : {newest, older, oldest}) {
    if (!n) continue;
    if (void* p = dlsym(api.lib, n)) {
      *fn = reinterpret_cast<F>(p);
      return;
    }
  }
}

Status fromNvml(Ret r) {
  if (r == 0) return {0, ""};
  return {r, api.errorString ? api.errorString(r) : "NVML error"};
}

Status missing(const char* what) { return {-1, what}; }

}  // namespace

Status Open() {
  if (opened) return openStatus;
  opened = true;
  api.lib = dlopen("libnvidia-ml.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (!api.lib) {
    const char* e = dlerror();
    std::snprintf(openMessage, sizeof openMessage, "%s", e ? e : "libnvidia-ml.so.1 could not be opened");
    return openStatus = {-1, openMessage};
  }
  bind(&api.init, "nvmlInit_v2", "nvmlInit");
  bind(&api.shutdown, "nvmlShutdown");
  bind(&api.errorString, "nvmlErrorString");
  bind(&api.count, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount");
  bind(&api.handle, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex");
  bind(&api.name, "nvmlDeviceGetName");
  bind(&api.uuid, "nvmlDeviceGetUUID");
  bind(&api.memory, "nvmlDeviceGetMemoryInfo");
  bind(&api.memoryV2, "nvmlDeviceGetMemoryInfo_v2");
  bind(&api.utilization, "nvmlDeviceGetUtilizationRates");
  bind(&api.processesV3, "nvmlDeviceGetComputeRunningProcesses_v3");
  bind(&api.processesV2, "nvmlDeviceGetComputeRunningProcesses_v2");
  bind(&api.processesV1, "nvmlDeviceGetComputeRunningProcesses");
  bind(&api.driver, "nvmlSystemGetDriverVersion");
  if (!api.init || !api.count || !api.handle || (!api.memory && !api.memoryV2)) {
    std::snprintf(openMessage, sizeof openMessage, "libnvidia-ml.so.1 lacks nvmlInit, nvmlDeviceGetCount, nvmlDeviceGetHandleByIndex or nvmlDeviceGetMemoryInfo");
    dlclose(api.lib);
    api = Api();
    return openStatus = {-1, openMessage};
  }
  Status s = fromNvml(api.init());
  if (!s.ok()) {
    std::snprintf(openMessage, sizeof openMessage, "nvmlInit failed: %s", s.message);
    dlclose(api.lib);
    api = Api();
    return openStatus = {s.code, openMessage};
  }
  return openStatus = {0, ""};
}

Status DeviceCount(unsigned* count) {
  Status s = Open();
  if (!s.ok()) return s;
  return fromNvml(api.count(count));
}

Status Device(unsigned index, DeviceInfo* out) {
  Status s = Open();
  if (!s.ok()) return s;
  std::memset(out, 0, sizeof *out);
  out->index = index;
  Handle h = nullptr;
  if (!(s = fromNvml(api.handle(index, &h))).ok()) return s;
  MemoryV2 m2 = {kMemoryV2, 0, 0, 0, 0};
  Ret r = api.memoryV2 ? api.memoryV2(h, &m2) : -1;
  if (r == 0) {
    out->total = m2.total, out->free = m2.free, out->used = m2.used, out->reserved = m2.reserved, out->hasReserved = true;
  } else {
    if (!api.memory) return fromNvml(r);
    Memory m = {0, 0, 0};
    if (!(s = fromNvml(api.memory(h, &m))).ok()) return s;
    out->total = m.total, out->free = m.free, out->used = m.used;
  }
  // Names and utilization are nice to have: a failure there does not fail the device.
  if (!api.name || api.name(h, out->name, sizeof out->name) != 0) std::snprintf(out->name, sizeof out->name, "GPU %u", index);
  if (!api.uuid || api.uuid(h, out->uuid, sizeof out->uuid) != 0) out->uuid[0] = 0;
  Utilization u = {0, 0};
  bool util = api.utilization && api.utilization(h, &u) == 0;
  out->gpuUtil = util ? static_cast<int>(u.gpu) : -1;
  out->memUtil = util ? static_cast<int>(u.memory) : -1;
  return {0, ""};
}

namespace {

// More than any GPU runs; past it a driver's count is taken as garbage rather than allocated.
constexpr unsigned kMaxProcesses = 1u << 16;

// The list sized from NVML's own count: asked with room for none, NVML answers INSUFFICIENT_SIZE
// with how many there are (or success when there are none); a buffer of that many plus slack
// (processes start between the calls) is filled, asking again a few times while the list grows.
template <typename Entry>
Status List(Ret (*fn)(Handle, unsigned*, Entry*), Handle h, std::vector<ProcessInfo>* out) {
  std::vector<Entry> buf;
  unsigned n = 0;
  Ret r = fn(h, &n, nullptr);
  for (int attempt = 0; r == kInsufficientSize && attempt < 5; attempt++) {
    if (n > kMaxProcesses) return {kInsufficientSize, "NVML reports more than 65536 processes on the device"};
    buf.assign(n + n / 4 + 8, Entry{});
    n = static_cast<unsigned>(buf.size());
    r = fn(h, &n, buf.data());
  }
  if (r == kInsufficientSize) return {r, "the device's process list kept growing while it was read"};
  if (r != 0) return fromNvml(r);
  out->clear();
  for (unsigned i = 0; i < n && i < buf.size(); i++) out->push_back({buf[i].pid, buf[i].used});
  return {0, ""};
}

}  // namespace

Status Processes(unsigned index, std::vector<ProcessInfo>* out) {
  Status s = Open();
  if (!s.ok()) return s;
  Handle h = nullptr;
  if (!(s = fromNvml(api.handle(index, &h))).ok()) return s;
  if (api.processesV3 || api.processesV2) return List(api.processesV3 ? api.processesV3 : api.processesV2, h, out);
  if (api.processesV1) return List(api.processesV1, h, out);
  return missing("libnvidia-ml.so.1 has no nvmlDeviceGetComputeRunningProcesses");
}

Status DriverVersion(char* out, size_t size) {
  Status s = Open();
  if (!s.ok()) return s;
  if (!api.driver) return missing("libnvidia-ml.so.1 has no nvmlSystemGetDriverVersion");
  return fromNvml(api.driver(out, static_cast<unsigned>(size)));
}

void Close() {
  if (api.lib) {
    if (api.shutdown) api.shutdown();
    dlclose(api.lib);
  }
  api = Api();
  opened = false;
  openStatus = {-1, "not opened"};
}

static_assert(sizeof(ProcessV2) == 24, "nvmlProcessInfo_v2_t layout");
static_assert(sizeof(ProcessV1) == 16, "nvmlProcessInfo_v1_t layout");
static_assert(sizeof(MemoryV2) == 40, "nvmlMemory_v2_t layout");
}  // namespace hr

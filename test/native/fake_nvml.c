/*
 * A stand-in libnvidia-ml.so.1 for machines without a driver: the entry points Headroom's addon
 * binds, answering from environment variables the test sets (so the expected figures live in the
 * test, not here). Built twice: as a current driver (_v2/_v3 entry points) and, with -DOLD_DRIVER,
 * as one that only has the first versions.
 *
 *   FAKE_NVML_COUNT=2  FAKE_NVML_DRIVER=580.1
 *   FAKE_NVML_NAME_0=… FAKE_NVML_UUID_0=… FAKE_NVML_TOTAL_0=… FAKE_NVML_USED_0=… FAKE_NVML_RESERVED_0=…
 *   FAKE_NVML_UTIL_0=gpu,mem   FAKE_NVML_PROCS_0=pid:bytes,pid:bytes (bytes "na": not available)
 *   FAKE_NVML_SYNTH_0=N  FAKE_NVML_GROW=base:factor (see processes())
 *   FAKE_NVML_FAIL=symbol:code (that entry point returns the NVML error code)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { unsigned long long total, free, used; } Memory;
typedef struct { unsigned version; unsigned long long total, reserved, free, used; } MemoryV2;
typedef struct { unsigned gpu, memory; } Utilization;
typedef struct { unsigned pid; unsigned long long used; } ProcessV1;
typedef struct { unsigned pid; unsigned long long used; unsigned gi, ci; } ProcessV2;
typedef struct { unsigned index; } *Device;

static struct { unsigned index; } devices[16];

static const char *env(const char *key, unsigned i) {
  char k[64];
  snprintf(k, sizeof k, "FAKE_NVML_%s_%u", key, i);
  return getenv(k);
}
static unsigned long long num(const char *key, unsigned i) {
  const char *v = env(key, i);
  return v ? strtoull(v, NULL, 10) : 0;
}
/* The code FAKE_NVML_FAIL sets for this entry point, else 0. */
static int fail(const char *symbol) {
  const char *f = getenv("FAKE_NVML_FAIL");
  size_t n = strlen(symbol);
  return f && strncmp(f, symbol, n) == 0 && f[n] == ':' ? atoi(f + n + 1) : 0;
}
static unsigned count(void) { return getenv("FAKE_NVML_COUNT") ? (unsigned)atoi(getenv("FAKE_NVML_COUNT")) : 0; }

const char *nvmlErrorString(int r) {
  switch (r) {
    case 3: return "Not Supported";
    case 4: return "Insufficient Permissions";
    case 7: return "Insufficient Size";
    case 9: return "Driver Not Loaded";
    case 999: return "Unknown Error";
    default: return "Some Error";
  }
}
int nvmlShutdown(void) { return 0; }
static int get_count(unsigned *c) { *c = count(); return 0; }
static int get_handle(unsigned i, Device *d) {
  if (i >= count() || i >= 16) return 2; /* NVML_ERROR_INVALID_ARGUMENT */
  devices[i].index = i;
  *d = (Device)&devices[i];
  return 0;
}
int nvmlDeviceGetName(Device d, char *out, unsigned n) { snprintf(out, n, "%s", env("NAME", d->index) ? env("NAME", d->index) : "Fake GPU"); return 0; }
int nvmlDeviceGetUUID(Device d, char *out, unsigned n) { snprintf(out, n, "%s", env("UUID", d->index) ? env("UUID", d->index) : ""); return 0; }
int nvmlDeviceGetUtilizationRates(Device d, Utilization *u) {
  const char *v = env("UTIL", d->index);
  if (!v) return 3;
  return sscanf(v, "%u,%u", &u->gpu, &u->memory) == 2 ? 0 : 3;
}
int nvmlDeviceGetMemoryInfo(Device d, Memory *m) {
  if (fail("nvmlDeviceGetMemoryInfo")) return fail("nvmlDeviceGetMemoryInfo");
  /* v1: used includes the driver's reserved share. */
  m->total = num("TOTAL", d->index);
  m->used = num("USED", d->index) + num("RESERVED", d->index);
  m->free = m->total - m->used;
  return 0;
}
/*
 * Processes as the driver lists them: FAKE_NVML_PROCS_<i> (any length), or FAKE_NVML_SYNTH_<i>=N
 * (pids 1000.., N MiB for the N-th) for lists longer than an environment variable holds. With
 * FAKE_NVML_GROW=base:factor only base * factor^calls of them are listed at the n-th call, as on a
 * host where processes keep starting. Like NVML: *n < count answers 7 (INSUFFICIENT_SIZE) with the
 * count, and out may be NULL when *n is 0.
 */
static unsigned calls;
static int processes(Device d, unsigned *n, void *out, int v2) {
  const char *spec = env("PROCS", d->index);
  unsigned synth = (unsigned)num("SYNTH", d->index), have = synth, pid;
  char *buf = strdup(spec ? spec : ""), used[32];
  if (!synth) for (char *p = strtok(buf, ","); p; p = strtok(NULL, ",")) have++;
  const char *grow = getenv("FAKE_NVML_GROW");
  unsigned base, factor;
  if (grow && sscanf(grow, "%u:%u", &base, &factor) == 2) {
    unsigned long long visible = base;
    for (unsigned c = 0; c < calls && visible < have; c++) visible *= factor;
    if (visible < have) have = (unsigned)visible;
  }
  calls++;
  if (*n < have) { *n = have; free(buf); return 7; }
  strcpy(buf, spec ? spec : "");
  unsigned i = 0;
  for (char *p = synth ? NULL : strtok(buf, ","); i < have; p = synth ? NULL : strtok(NULL, ","), i++) {
    unsigned long long b;
    if (synth) { pid = 1000 + i; b = (unsigned long long)(i + 1) << 20; }
    else {
      if (!p || sscanf(p, "%u:%31s", &pid, used) != 2) { free(buf); return 999; }
      b = strcmp(used, "na") == 0 ? ~0ULL : strtoull(used, NULL, 10);
    }
    if (v2) { ProcessV2 *o = (ProcessV2 *)out + i; o->pid = pid; o->used = b; o->gi = o->ci = 0xFFFFFFFF; }
    else { ProcessV1 *o = (ProcessV1 *)out + i; o->pid = pid; o->used = b; }
  }
  *n = have;
  free(buf);
  return 0;
}
int nvmlSystemGetDriverVersion(char *out, unsigned n) {
  if (fail("nvmlSystemGetDriverVersion")) return fail("nvmlSystemGetDriverVersion");
  snprintf(out, n, "%s", getenv("FAKE_NVML_DRIVER") ? getenv("FAKE_NVML_DRIVER") : "0");
  return 0;
}

#ifdef OLD_DRIVER
int nvmlInit(void) { return fail("nvmlInit"); }
int nvmlDeviceGetCount(unsigned *c) { return get_count(c); }
int nvmlDeviceGetHandleByIndex(unsigned i, Device *d) { return get_handle(i, d); }
int nvmlDeviceGetComputeRunningProcesses(Device d, unsigned *n, ProcessV1 *out) { return fail("nvmlDeviceGetComputeRunningProcesses") ? fail("nvmlDeviceGetComputeRunningProcesses") : processes(d, n, out, 0); }
#else
int nvmlInit_v2(void) { return fail("nvmlInit_v2"); }
int nvmlDeviceGetCount_v2(unsigned *c) { return get_count(c); }
int nvmlDeviceGetHandleByIndex_v2(unsigned i, Device *d) { return get_handle(i, d); }
int nvmlDeviceGetMemoryInfo_v2(Device d, MemoryV2 *m) {
  if (fail("nvmlDeviceGetMemoryInfo_v2")) return fail("nvmlDeviceGetMemoryInfo_v2");
  if (m->version != ((unsigned)sizeof(MemoryV2) | (2u << 24))) return 25; /* NVML_ERROR_ARGUMENT_VERSION_MISMATCH */
  m->total = num("TOTAL", d->index);
  m->used = num("USED", d->index);
  m->reserved = num("RESERVED", d->index);
  m->free = m->total - m->used - m->reserved;
  return 0;
}
int nvmlDeviceGetComputeRunningProcesses_v3(Device d, unsigned *n, ProcessV2 *out) { return fail("nvmlDeviceGetComputeRunningProcesses_v3") ? fail("nvmlDeviceGetComputeRunningProcesses_v3") : processes(d, n, out, 1); }
#endif

// The addon's JavaScript surface. Every call returns a typed result, never throws into the extension
// host: {ok: true, value} or {ok: false, code, message} (code -1: NVML missing; else NVML's code).
#include <napi.h>

#include <vector>

#include "nvml_dyn.h"

namespace {

Napi::Object Fail(Napi::Env env, const hr::Status& s) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("ok", false);
  o.Set("code", s.code);
  o.Set("message", s.message);
  return o;
}

Napi::Object Ok(Napi::Env env, Napi::Value value) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("ok", true);
  o.Set("value", value);
  return o;
}

// Bytes as JS numbers: exact below 2^53 (8 PiB), which every device is.
Napi::Value Bytes(Napi::Env env, unsigned long long b) { return Napi::Number::New(env, static_cast<double>(b)); }

Napi::Value Available(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  hr::Status s = hr::Open();
  Napi::Object o = Napi::Object::New(env);
  o.Set("available", s.ok());
  if (!s.ok()) o.Set("reason", s.message);
  return o;
}

Napi::Value Devices(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  unsigned n = 0;
  hr::Status s = hr::DeviceCount(&n);
  if (!s.ok()) return Fail(env, s);
  Napi::Array out = Napi::Array::New(env, n);
  for (unsigned i = 0; i < n; i++) {
    hr::DeviceInfo d;
    if (!(s = hr::Device(i, &d)).ok()) return Fail(env, s);
    Napi::Object o = Napi::Object::New(env);
    o.Set("index", d.index);
    o.Set("name", d.name);
    o.Set("uuid", d.uuid);
    o.Set("total", Bytes(env, d.total));
    o.Set("used", Bytes(env, d.used));
    o.Set("free", Bytes(env, d.free));
    o.Set("reserved", d.hasReserved ? Bytes(env, d.reserved) : env.Null());
    o.Set("gpuUtil", d.gpuUtil >= 0 ? Napi::Number::New(env, d.gpuUtil) : env.Null());
    o.Set("memUtil", d.memUtil >= 0 ? Napi::Number::New(env, d.memUtil) : env.Null());
    out.Set(i, o);
  }
  return Ok(env, out);
}

Napi::Value Processes(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsNumber()) return Fail(env, {-2, "processes(device): device must be a number"});
  unsigned index = info[0].As<Napi::Number>().Uint32Value();
  std::vector<hr::ProcessInfo> ps;
  hr::Status s = hr::Processes(index, &ps);
  if (!s.ok()) return Fail(env, s);
  const unsigned count = static_cast<unsigned>(ps.size());
  Napi::Array out = Napi::Array::New(env, count);
  for (unsigned i = 0; i < count; i++) {
    Napi::Object o = Napi::Object::New(env);
    o.Set("pid", ps[i].pid);
    // NVML_VALUE_NOT_AVAILABLE: the driver does not say (containers, some MIG setups).
    o.Set("used", ps[i].used == ~0ULL ? env.Null() : Bytes(env, ps[i].used));
    out.Set(i, o);
  }
  return Ok(env, out);
}

Napi::Value DriverVersion(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  char v[96] = {0};
  hr::Status s = hr::DriverVersion(v, sizeof v);
  if (!s.ok()) return Fail(env, s);
  return Ok(env, Napi::String::New(env, v));
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("available", Napi::Function::New(env, Available));
  exports.Set("devices", Napi::Function::New(env, Devices));
  exports.Set("processes", Napi::Function::New(env, Processes));
  exports.Set("driverVersion", Napi::Function::New(env, DriverVersion));
  env.AddCleanupHook([]() { hr::Close(); });
  return exports;
}

}  // namespace

NODE_API_MODULE(headroom_nvml, Init)

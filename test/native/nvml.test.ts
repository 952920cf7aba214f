import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { ensureTools } from '../e2e/harness/install';
import { ROOT } from '../unit/helpers';

// The NVML addon, built from source by `npm test`, against a stand-in libnvidia-ml.so.1 (C, built
// here) whose figures come from this file's environment variables: the addon must hand back exactly
// those, every error as a typed result, and load where VS Code Server runs.
const ADDON = join(ROOT, 'native', 'build', 'Release', 'headroom_nvml.node');
const GiB = 2 ** 30;

/** Runs the addon in a fresh process (it opens NVML once per process) and returns what each call gave. */
function probe(env: Record<string, string>, node = process.execPath): Record<string, unknown> {
  const script = `const a = require(${JSON.stringify(ADDON)});
    process.stdout.write(JSON.stringify({ available: a.available(), devices: a.devices(), p0: a.processes(0), p1: a.processes(1), bad: a.processes('x'), missing: a.processes(7), driver: a.driverVersion() }));`;
  return JSON.parse(execFileSync(node, ['-e', script], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', ...env } })) as Record<
    string,
    unknown
  >;
}

function buildFake(dir: string, old: boolean): string {
  mkdirSync(dir, { recursive: true });
  execFileSync('cc', [
    '-shared',
    '-fPIC',
    '-O1',
    ...(old ? ['-DOLD_DRIVER'] : []),
    '-o',
    join(dir, 'libnvidia-ml.so.1'),
    join(ROOT, 'test', 'native', 'fake_nvml.c'),
  ]);
  return dir;
}

/** A system NVML (a GPU host) answers instead of "missing": that case is only checkable without one. */
const systemNvml = (): boolean => {
  try {
    return execFileSync('ldconfig', ['-p'], { encoding: 'utf8' }).includes('libnvidia-ml.so.1');
  } catch {
    return false;
  }
};

describe('native NVML addon', () => {
  let current: string;
  let old: string;
  const spec = {
    FAKE_NVML_COUNT: '2',
    FAKE_NVML_DRIVER: '580.65.06',
    FAKE_NVML_NAME_0: 'NVIDIA H200',
    FAKE_NVML_UUID_0: 'GPU-0f7c4e2a-1111-2222-3333-444455556666',
    FAKE_NVML_TOTAL_0: String(141 * GiB),
    FAKE_NVML_USED_0: String(37 * GiB + 12345),
    FAKE_NVML_RESERVED_0: String(512 * 2 ** 20),
    FAKE_NVML_UTIL_0: '87,41',
    FAKE_NVML_PROCS_0: `4242:${20 * GiB},4343:${17 * GiB + 12345}`,
    FAKE_NVML_NAME_1: 'NVIDIA H200',
    FAKE_NVML_TOTAL_1: String(141 * GiB),
    FAKE_NVML_USED_1: '0',
    FAKE_NVML_PROCS_1: '5151:na',
  };

  before(() => {
    assert.ok(existsSync(ADDON), `${ADDON} is built by npm test (npm run build:native)`);
    const dir = mkdtempSync(join(tmpdir(), 'headroom-fake-nvml-'));
    current = buildFake(join(dir, 'current'), false);
    old = buildFake(join(dir, 'old'), true);
  });

  it('without NVML: available() is false with the loader’s reason, and every call is a typed failure', (t) => {
    if (systemNvml()) return t.skip('this machine has a real libnvidia-ml.so.1');
    const r = probe({});
    assert.equal((r.available as { available: boolean }).available, false);
    assert.match((r.available as { reason: string }).reason, /libnvidia-ml\.so\.1/);
    for (const k of ['devices', 'p0', 'driver'])
      assert.deepEqual(r[k], { ok: false, code: -1, message: (r.available as { reason: string }).reason });
  });

  it('returns exactly the driver’s figures: devices, memory (v2: reserved apart), utilization, processes, driver', () => {
    const r = probe({ ...spec, LD_LIBRARY_PATH: current });
    assert.deepEqual(r.available, { available: true });
    assert.deepEqual(r.devices, {
      ok: true,
      value: [
        {
          index: 0,
          name: spec.FAKE_NVML_NAME_0,
          uuid: spec.FAKE_NVML_UUID_0,
          total: 141 * GiB,
          used: 37 * GiB + 12345,
          free: 141 * GiB - (37 * GiB + 12345) - 512 * 2 ** 20,
          reserved: 512 * 2 ** 20,
          gpuUtil: 87,
          memUtil: 41,
        },
        {
          index: 1,
          name: spec.FAKE_NVML_NAME_1,
          uuid: '',
          total: 141 * GiB,
          used: 0,
          free: 141 * GiB,
          reserved: 0,
          gpuUtil: null,
          memUtil: null,
        },
      ],
    });
    assert.deepEqual(r.p0, {
      ok: true,
      value: [
        { pid: 4242, used: 20 * GiB },
        { pid: 4343, used: 17 * GiB + 12345 },
      ],
    });
    assert.deepEqual(r.p1, { ok: true, value: [{ pid: 5151, used: null }] }, 'NVML_VALUE_NOT_AVAILABLE is null, not 16 EiB');
    assert.deepEqual(r.driver, { ok: true, value: spec.FAKE_NVML_DRIVER });
    assert.deepEqual(r.bad, { ok: false, code: -2, message: 'processes(device): device must be a number' });
    assert.equal((r.missing as { ok: boolean; code: number }).code, 2, 'an index past the last device is NVML’s INVALID_ARGUMENT');
  });

  it('an older driver (no _v2/_v3 entry points): the first versions, reserved unknown', () => {
    const r = probe({ ...spec, LD_LIBRARY_PATH: old });
    const [d0] = (r.devices as { value: Record<string, unknown>[] }).value;
    // v1 counts the driver's reserved share as used.
    assert.deepEqual(
      [d0!.used, d0!.reserved, d0!.free],
      [37 * GiB + 12345 + 512 * 2 ** 20, null, 141 * GiB - (37 * GiB + 12345) - 512 * 2 ** 20],
    );
    assert.deepEqual(r.p0, {
      ok: true,
      value: [
        { pid: 4242, used: 20 * GiB },
        { pid: 4343, used: 17 * GiB + 12345 },
      ],
    });
  });

  it('errors from NVML come back typed with NVML’s code and message; nvmlInit failing makes it unavailable', () => {
    const denied = probe({ ...spec, LD_LIBRARY_PATH: current, FAKE_NVML_FAIL: 'nvmlDeviceGetComputeRunningProcesses_v3:4' });
    assert.deepEqual(denied.p0, { ok: false, code: 4, message: 'Insufficient Permissions' });
    assert.equal((denied.devices as { ok: boolean }).ok, true, 'one failing call fails only itself');
    const noDriver = probe({ ...spec, LD_LIBRARY_PATH: current, FAKE_NVML_FAIL: 'nvmlInit_v2:9' });
    assert.deepEqual(noDriver.available, { available: false, reason: 'nvmlInit failed: Driver Not Loaded' });
    assert.deepEqual(noDriver.devices, { ok: false, code: 9, message: 'nvmlInit failed: Driver Not Loaded' });
  });

  it('lists every process when there are more than its first buffer holds', () => {
    const many = Array.from({ length: 150 }, (_, i) => `${1000 + i}:${(i + 1) * 2 ** 20}`).join(',');
    const r = probe({ ...spec, LD_LIBRARY_PATH: current, FAKE_NVML_PROCS_0: many });
    const ps = (r.p0 as { value: { pid: number; used: number }[] }).value;
    assert.equal(ps.length, 150);
    assert.deepEqual(ps.at(-1), { pid: 1149, used: 150 * 2 ** 20 });
  });

  it('lists every process past 512 (the old fixed buffer) with its own figures, through v3 and v1', () => {
    // pid 1000 + k holds (k + 1) MiB: none may come back zero-filled or cut off.
    const want = Array.from({ length: 700 }, (_, k) => ({ pid: 1000 + k, used: (k + 1) * 2 ** 20 }));
    for (const lib of [current, old]) {
      const r = probe({ ...spec, LD_LIBRARY_PATH: lib, FAKE_NVML_PROCS_0: '', FAKE_NVML_SYNTH_0: '700' });
      assert.deepEqual(r.p0, { ok: true, value: want }, lib);
    }
  });

  it('asks again while the list grows between calls, and says so when it never settles', () => {
    // 100, then 400, then all 700 are listed: each answer is larger than the room the last count gave.
    const grew = probe({ ...spec, LD_LIBRARY_PATH: current, FAKE_NVML_SYNTH_0: '700', FAKE_NVML_GROW: '100:4' });
    const ps = (grew.p0 as { value: { pid: number; used: number }[] }).value;
    assert.equal(ps.length, 700);
    assert.deepEqual(ps.at(-1), { pid: 1699, used: 700 * 2 ** 20 });
    // Eight times more on every call: no buffer sized from the last count is ever enough.
    const runaway = probe({ ...spec, LD_LIBRARY_PATH: current, FAKE_NVML_SYNTH_0: '60000', FAKE_NVML_GROW: '10:8' });
    assert.equal((runaway.p0 as { ok: boolean; code: number }).ok, false);
    assert.equal((runaway.p0 as { code: number }).code, 7, 'NVML_ERROR_INSUFFICIENT_SIZE, typed');
    assert.equal((runaway.devices as { ok: boolean }).ok, true);
  });

  it('needs nothing newer than glibc 2.28 and libstdc++ 3.4.25 (VS Code Server’s floor: RHEL 8, Ubuntu 20.04)', () => {
    const syms = execFileSync('objdump', ['-T', ADDON], { encoding: 'utf8' });
    const versions = (re: RegExp) => [...syms.matchAll(re)].map((m) => m[1]!.split('.').map(Number));
    const newer = (v: number[], max: number[]): boolean => {
      for (let i = 0; i < Math.max(v.length, max.length); i++) if ((v[i] ?? 0) !== (max[i] ?? 0)) return (v[i] ?? 0) > (max[i] ?? 0);
      return false;
    };
    const glibc = versions(/GLIBC_([0-9.]+)/g);
    const glibcxx = versions(/GLIBCXX_([0-9.]+)/g);
    assert.ok(glibc.length > 0, 'objdump lists the glibc symbols it needs');
    assert.deepEqual(
      glibc.filter((v) => newer(v, [2, 28])).map((v) => v.join('.')),
      [],
      'symbols from glibc newer than 2.28',
    );
    assert.deepEqual(
      glibcxx.filter((v) => newer(v, [3, 4, 25])).map((v) => v.join('.')),
      [],
      'symbols from libstdc++ newer than 3.4.25',
    );
    assert.doesNotMatch(
      execFileSync('readelf', ['-d', ADDON], { encoding: 'utf8' }),
      /libnvidia-ml/,
      'NVML is opened at run time, never linked',
    );
  });

  it('loads unchanged in code-server’s Node 24 and answers the same', () => {
    const { node24 } = ensureTools();
    const env = { ...spec, LD_LIBRARY_PATH: current };
    assert.notEqual(
      execFileSync(node24, ['-p', 'process.versions.node'], { encoding: 'utf8' }).split('.')[0],
      process.versions.node.split('.')[0],
    );
    assert.deepEqual(probe(env, node24), probe(env));
  });
});

// npm run bench:timeline: the timeline page in headless Chromium, driven from Node by the same
// TimelineSession the extension uses, on a ≥1M-event snapshot. It measures the time from the data
// arriving in the page to its first paint (and to full detail, after the host's first frame) and
// the 95th-percentile frame time during a scripted pan/zoom. Baseline, same run, same page: a
// 421-event capture. Goals: first paint ≤ 1.5 s, p95 frame ≤ 16 ms.
import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { analyzeDevice, defaultDevice } from '../extension/src/core/analysis/analyze';
import { loadSnapshotFile } from '../extension/src/core/snapshot/load';
import type { FromTimeline, ToTimeline } from '../extension/src/core/timeline/protocol';
import { TimelineSession } from '../extension/src/core/timeline/session';
import { launchBrowser } from '../test/e2e/harness/browser';
import { CHROMIUM } from '../test/e2e/harness/install';
import { benchSnapshot } from './snapshots';

const ROOT = resolve(__dirname, '..');
const STEPS = Number(process.env.HEADROOM_BENCH_STEPS ?? 240);
const ROUNDS = Number(process.env.HEADROOM_BENCH_RUNS ?? 3);
const SMALL = join(ROOT, 'test', 'fixtures', 'snapshots', 'e2e_train_b64.pickle');

/** Messages cross as JSON here (VS Code uses structured clone): typed arrays as base64, ±Infinity tagged. */
function encode(m: ToTimeline): string {
  return JSON.stringify(m, (_k, v: unknown) => {
    if (ArrayBuffer.isView(v))
      return { __ta: v.constructor.name, b64: Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64') };
    if (typeof v === 'number' && !Number.isFinite(v)) return { __num: String(v) };
    return v;
  });
}

// Runs in the page before timeline.js: the host seam, the decoder, and the instrumentation.
const SHIM = `
const TA = { Int32Array, Float64Array, Uint32Array, Uint8Array, Float32Array };
window.__bench = { listeners: [], initAt: 0, paints: [], frames: [], parts: [], pending: 0, measuring: false };
window.__headroomHost = {
  post: (m) => window.__toNode(m),
  onMessage: (fn) => window.__bench.listeners.push(fn),
  getState: () => undefined,
  setState: () => {},
};
window.__deliver = (text) => {
  const m = JSON.parse(text, (k, v) => {
    if (v && typeof v === 'object' && v.__ta) { const b = Uint8Array.from(atob(v.b64), (c) => c.charCodeAt(0)); return new TA[v.__ta](b.buffer); }
    if (v && typeof v === 'object' && v.__num) return Number(v.__num);
    return v;
  });
  const t0 = performance.now();
  if (m.type === 'init') window.__bench.initAt = t0;
  for (const fn of window.__bench.listeners) fn(m);
  window.__bench.pending += performance.now() - t0;
};`;

// After timeline.js: every draw's time, plus the input and message work since the previous draw.
const PROBE = `
const app = window.__timeline, b = window.__bench, draw = app.draw.bind(app);
app.draw = () => {
  const t0 = performance.now();
  draw();
  const t1 = performance.now();
  if (b.initAt && b.paints.length < 2 && (b.paints.length === 0 || app.primary)) b.paints.push(t1 - b.initAt);
  if (b.measuring) {
    b.frames.push(t1 - t0 + b.pending);
    b.parts.push(app.chart.parts);
  }
  b.pending = 0;
};
const canvas = document.querySelector('canvas.plot');
for (const type of ['wheel', 'pointermove']) canvas.addEventListener(type, () => { const t0 = performance.now(); queueMicrotask(() => (b.pending += performance.now() - t0)); }, { capture: true });`;

// The scripted session (a string: the page runs it as written): zoom in at drifting points, pan
// both ways, zoom back out; one wheel event per animation frame.
const SCRIPTED = `async (steps) => {
  const canvas = document.querySelector('canvas.plot');
  const r = canvas.getBoundingClientRect();
  const raf = () => new Promise((res) => requestAnimationFrame(res));
  window.__bench.measuring = true;
  for (let i = 0; i < steps; i++) {
    const phase = Math.floor((i / steps) * 4);
    const init = { clientX: r.left + r.width * (0.2 + (0.6 * ((i * 37) % 100)) / 100), clientY: r.top + r.height / 2, bubbles: true, cancelable: true, deltaMode: 0 };
    const d = [{ deltaY: -120 }, { deltaY: 90, shiftKey: true }, { deltaX: -140 }, { deltaY: 150 }][phase];
    canvas.dispatchEvent(new WheelEvent('wheel', { ...init, ...d }));
    await raf();
  }
  // Let the last answers from the host arrive and be drawn.
  for (let i = 0; i < 60; i++) await raf();
  window.__bench.measuring = false;
  return window.__bench.frames;
}`;

interface Result {
  events: number;
  modelMs: number;
  firstPaint: number;
  detailPaint: number;
  p50: number;
  p95: number;
  max: number;
  frames: number;
  lodMs: number[];
  /** Median ms per part of the plot's draw. */
  parts: Record<string, number>;
}

async function measure(page: Page, path: string): Promise<Result> {
  const snap = await loadSnapshotFile(path);
  const device = defaultDevice(snap)!;
  const analysis = analyzeDevice(snap, device);
  const t0 = performance.now();
  const session = new TimelineSession(1, {
    snapshot: snap,
    analysis,
    title: path.split('/').pop()!,
    path,
    instant: { index: analysis.replay.peak.index, label: 'at peak' },
  });
  const modelMs = performance.now() - t0;
  const lodMs: number[] = [];
  const deliver = (m: ToTimeline | undefined) => {
    if (m) void page.evaluate(`window.__deliver(${JSON.stringify(encode(m))})`).catch(() => undefined);
  };
  await page.exposeFunction('__toNode', (m: FromTimeline) => {
    if (m.type === 'ready') deliver(session.init());
    else if (m.type === 'view') {
      const t = performance.now();
      const f = session.frame(m.seq, m.request);
      lodMs.push(performance.now() - t);
      deliver(f);
    } else if (m.type === 'element') deliver(session.element(m.id));
    else if (m.type === 'segments') deliver(session.segments(m.index));
    else if (m.type === 'setInstant') deliver(session.instant(m.index, `at event #${m.index}`));
  });
  const css = readFileSync(join(ROOT, 'dist', 'timeline.css'), 'utf8');
  const js = readFileSync(join(ROOT, 'dist', 'timeline.js'), 'utf8');
  await page.setContent(
    `<!DOCTYPE html><html><head><style>${css}</style></head><body><script>${SHIM}</script><script>${js}</script><script>${PROBE}</script></body></html>`,
  );
  await page.waitForFunction('window.__bench.paints.length >= 2', undefined, { timeout: 120_000, polling: 10 });
  const paints = (await page.evaluate('window.__bench.paints')) as number[];

  // The scripted session: zoom in at drifting points, pan both ways, zoom back out; one input per frame.
  const frames = (await page.evaluate(`(${SCRIPTED})(${STEPS})`)) as number[];
  const partList = (await page.evaluate('window.__bench.parts')) as Record<string, number>[];
  const parts: Record<string, number> = {};
  for (const k of Object.keys(partList[0] ?? {}))
    parts[k] = [...partList.map((p) => p[k]!)].sort((a, b) => a - b)[Math.floor(partList.length / 2)]!;
  await page.close();
  const sorted = [...frames].sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
  return {
    events: analysis.replay.n,
    modelMs,
    firstPaint: paints[0]!,
    detailPaint: paints[1]!,
    p50: q(0.5),
    p95: q(0.95),
    max: sorted.at(-1) ?? NaN,
    frames: frames.length,
    lodMs,
    parts,
  };
}

/** Each figure's median over the rounds. */
function medianResult(rs: Result[]): Result {
  const med = (f: (r: Result) => number) => rs.map(f).sort((a, b) => a - b)[Math.floor(rs.length / 2)]!;
  const parts: Record<string, number> = {};
  for (const k of Object.keys(rs[0]!.parts)) parts[k] = med((r) => r.parts[k]!);
  return {
    events: rs[0]!.events,
    modelMs: med((r) => r.modelMs),
    firstPaint: med((r) => r.firstPaint),
    detailPaint: med((r) => r.detailPaint),
    p50: med((r) => r.p50),
    p95: med((r) => r.p95),
    max: med((r) => r.max),
    frames: med((r) => r.frames),
    lodMs: rs.flatMap((r) => r.lodMs),
    parts,
  };
}

async function main(): Promise<void> {
  const { path, what } = benchSnapshot(ROOT, 1_000_000);
  const { browser, context } = await launchBrowser(CHROMIUM, 1440, 900);
  try {
    // Rounds interleaved (baseline, big, baseline, big…) and the median of each figure, so that a
    // noisy moment of the machine lands on both sides or on neither.
    const smalls: Result[] = [];
    const bigs: Result[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      smalls.push(await measure(await context.newPage(), SMALL));
      bigs.push(await measure(await context.newPage(), path));
    }
    const small = medianResult(smalls);
    const big = medianResult(bigs);
    const ms = (v: number) => `${v.toFixed(1).padStart(8)} ms`;
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
    console.log(
      `snapshot: ${path}\n  ${what}, ${(statSync(path).size / 2 ** 20).toFixed(1)} MiB, ${big.events.toLocaleString('en-US')} events`,
    );
    console.log(
      `baseline: ${SMALL.split('/').pop()} (${small.events} events), same page, same run; headless Chromium 1440×900, ${STEPS} scripted wheel steps; median of ${ROUNDS} interleaved rounds\n`,
    );
    console.log(`                                   big          baseline     ratio`);
    console.log(`host: model build (once)     ${ms(big.modelMs)}  ${ms(small.modelMs)}`);
    console.log(`host: LOD frame (median)     ${ms(med(big.lodMs))}  ${ms(med(small.lodMs))}   (${big.lodMs.length} frames asked)`);
    console.log(
      `first paint after data       ${ms(big.firstPaint)}  ${ms(small.firstPaint)}  ${(big.firstPaint / small.firstPaint).toFixed(2)}×   goal ≤ 1500 ms`,
    );
    console.log(
      `full detail (host frame in)  ${ms(big.detailPaint)}  ${ms(small.detailPaint)}  ${(big.detailPaint / small.detailPaint).toFixed(2)}×`,
    );
    console.log(`frame time p50               ${ms(big.p50)}  ${ms(small.p50)}  ${(big.p50 / small.p50).toFixed(2)}×`);
    console.log(`frame time p95               ${ms(big.p95)}  ${ms(small.p95)}  ${(big.p95 / small.p95).toFixed(2)}×   goal ≤ 16 ms`);
    console.log(`frame time max               ${ms(big.max)}  ${ms(small.max)}   (${big.frames} / ${small.frames} frames drawn)`);
    const parts = (r: Result) =>
      Object.entries(r.parts)
        .map(([k, v]) => `${k} ${v.toFixed(1)}`)
        .join(', ');
    console.log(`\nplot draw, median ms: big: ${parts(big)}\n                      baseline: ${parts(small)}`);
    console.log("frame time: the page's own work per drawn frame (input and message handling since the last draw, plus the draw).");
  } finally {
    await browser.close();
  }
}

void main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});

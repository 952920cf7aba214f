// npm run bench:flame: the flame graph on a snapshot with ~1M blocks live at its peak. Host side:
// the call tree of the instant (callTree, once per instant) and its pruning to what can be drawn
// (pruneFlame), with the message's size. Page side, in headless Chromium (the bundle VS Code
// loads, driven from Node as bench:timeline does): from the data arriving to the frames laid out
// and painted, then a zoom and a search. Baselines, same run: the demo capture, and a made-up tree
// at the host's frame cap (20,000 frames, all wide enough to draw) for the page's worst case.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { analyzeDevice, defaultDevice } from '../extension/src/core/analysis/analyze';
import { callTree } from '../extension/src/core/analysis/callTree';
import type { FlameInit, FlameNode } from '../extension/src/core/flame/protocol';
import { FlameIds, flameMinBytes, pruneFlame } from '../extension/src/core/flame/prune';
import { loadSnapshotFile } from '../extension/src/core/snapshot/load';
import { launchBrowser } from '../test/e2e/harness/browser';
import { CHROMIUM } from '../test/e2e/harness/install';

const ROOT = resolve(__dirname, '..');
const ROUNDS = Number(process.env.HEADROOM_BENCH_RUNS ?? 3);
const LIVE = 1_000_000;
const DEMO = join(ROOT, 'test', 'fixtures', 'snapshots', 'leaky_demo.pickle');
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (v: number) => `${v.toFixed(1).padStart(8)} ms`;

/** HEADROOM_BENCH_SNAPSHOT, else the HF Trainer capture's allocations repeated until 1M are live (bench/synth_live.py). */
function snapshot(): { path: string; what: string } {
  const env = process.env.HEADROOM_BENCH_SNAPSHOT;
  if (env) return { path: env, what: `HEADROOM_BENCH_SNAPSHOT (${env})` };
  const path = join(ROOT, 'bench', 'data', `synth_live_${LIVE}.pickle`);
  const src = join(ROOT, 'test', 'fixtures', 'modules', 'hf_trainer', 'snapshot-peak.pickle.gz');
  if (!existsSync(path)) {
    mkdirSync(join(ROOT, 'bench', 'data'), { recursive: true });
    execFileSync('python3', [join(ROOT, 'bench', 'synth_live.py'), src, path, String(LIVE)]);
  }
  return {
    path,
    what: `synthetic: the allocations of a real HF Trainer capture (H100, test/fixtures/modules/hf_trainer) repeated with their stacks and never freed (bench/synth_live.py)`,
  };
}

interface Host {
  blocks: number;
  treeMs: number;
  pruneMs: number;
  frames: number;
  kb: number;
  init: FlameInit;
}

async function host(path: string): Promise<Host> {
  const s = await loadSnapshotFile(path);
  const a = analyzeDevice(s, defaultDevice(s)!);
  const tree: number[] = [];
  const prune: number[] = [];
  let out: { root: FlameNode; ids: FlameIds; blocks: number } | undefined;
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    const t = callTree(s, a, a.replay.peak.index);
    const t1 = performance.now();
    const ids = new FlameIds();
    const root = pruneFlame(t.root, ids, { minBytes: flameMinBytes(t.root.bytes) });
    prune.push(performance.now() - t1);
    tree.push(t1 - t0);
    out = { root, ids, blocks: t.root.blocks };
  }
  const init: FlameInit = {
    type: 'init',
    session: 1,
    title: path.split('/').pop()!,
    instantLabel: 'at peak',
    path,
    device: 0,
    root: out!.root,
  };
  return {
    blocks: out!.blocks,
    treeMs: med(tree),
    pruneMs: med(prune),
    frames: out!.ids.nodes.size,
    kb: JSON.stringify(init).length / 1024,
    init,
  };
}

/** The page's worst case: 1,000 callers of equal size, each 19 frames deep (20,000 frames, each ≥ 1 px at 1440 px). */
function capTree(): FlameInit {
  let id = 0;
  const frame = (label: string, bytes: number, children: FlameNode[]): FlameNode => ({
    id: id++,
    kind: children.length % 2 ? 'user' : 'library',
    label,
    file: `/w/${label}.py`,
    line: 1,
    bytes,
    blocks: 1,
    selfBytes: bytes - children.reduce((x, c) => x + c.bytes, 0),
    otherBytes: 0,
    otherCount: 0,
    folded: ['nn.Module call'],
    selfVia: [],
    children,
  });
  const chain = (i: number, depth: number): FlameNode => frame(`f${i}_${depth}`, 1 << 20, depth < 18 ? [chain(i, depth + 1)] : []);
  const root = frame(
    'all live memory',
    1000 << 20,
    Array.from({ length: 1000 }, (_, i) => chain(i, 0)),
  );
  return { type: 'init', session: 1, title: 'cap', instantLabel: 'at peak', path: 'cap', device: 0, root };
}

const SHIM = `window.__deliver = null; window.__headroomFlameHost = {
  post: () => {}, onMessage: (fn) => (window.__deliver = fn), getState: () => undefined, setState: () => {},
};`;

/** Data in → frames painted (two animation frames later), then a zoom into the widest child and a search. */
async function page(p: Page, init: FlameInit): Promise<{ first: number; zoom: number; search: number; drawn: number }> {
  const css = readFileSync(join(ROOT, 'dist', 'flame.css'), 'utf8');
  const js = readFileSync(join(ROOT, 'dist', 'flame.js'), 'utf8');
  await p.setContent(
    `<!DOCTYPE html><html><head><style>${css}</style></head><body><script>${SHIM}</script><script>${js}</script></body></html>`,
  );
  const r = (await p.evaluate(`(async (text) => {
    const raf = () => new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res)));
    const app = window.__flame;
    const t0 = performance.now();
    window.__deliver(JSON.parse(text));
    await raf();
    const first = performance.now() - t0;
    const drawn = app.rects.size;
    const t1 = performance.now();
    app.zoom(app.root.children[0]);
    await raf();
    const zoom = performance.now() - t1;
    app.zoom(app.root);
    await raf();
    const t2 = performance.now();
    app.search('_1');
    await raf();
    return { first, zoom, search: performance.now() - t2, drawn };
  })(${JSON.stringify(JSON.stringify(init))})`)) as { first: number; zoom: number; search: number; drawn: number };
  await p.close();
  return r;
}

async function main(): Promise<void> {
  const { path, what } = snapshot();
  const big = await host(path);
  const demo = await host(DEMO);
  const cap = capTree();
  const { browser, context } = await launchBrowser(CHROMIUM, 1440, 900);
  const runs: Record<'big' | 'demo' | 'cap', Awaited<ReturnType<typeof page>>[]> = { big: [], demo: [], cap: [] };
  try {
    for (let r = 0; r < ROUNDS; r++) {
      runs.demo.push(await page(await context.newPage(), demo.init));
      runs.big.push(await page(await context.newPage(), big.init));
      runs.cap.push(await page(await context.newPage(), cap));
    }
  } finally {
    await browser.close();
  }
  const m = (k: keyof typeof runs, f: 'first' | 'zoom' | 'search' | 'drawn') => med(runs[k].map((x) => x[f]));
  console.log(
    `snapshot: ${path}\n  ${what}, ${(statSync(path).size / 2 ** 20).toFixed(1)} MiB, ${big.blocks.toLocaleString('en-US')} blocks live at the peak`,
  );
  console.log(`baseline: ${DEMO.split('/').pop()} (${demo.blocks} blocks live); median of ${ROUNDS} rounds; headless Chromium 1440×900\n`);
  console.log(`                                   1M live      demo`);
  console.log(`host: call tree (callTree)   ${ms(big.treeMs)}  ${ms(demo.treeMs)}`);
  console.log(`host: prune (pruneFlame)     ${ms(big.pruneMs)}  ${ms(demo.pruneMs)}`);
  console.log(
    `frames sent / message        ${String(big.frames).padStart(8)} / ${big.kb.toFixed(0)} KiB   ${demo.frames} / ${demo.kb.toFixed(0)} KiB`,
  );
  console.log(
    `page: data in → painted      ${ms(m('big', 'first'))}  ${ms(m('demo', 'first'))}   (${m('big', 'drawn')} / ${m('demo', 'drawn')} frames drawn)`,
  );
  console.log(`page: zoom → painted         ${ms(m('big', 'zoom'))}  ${ms(m('demo', 'zoom'))}`);
  console.log(`page: search → painted       ${ms(m('big', 'search'))}  ${ms(m('demo', 'search'))}`);
  console.log(
    `\nthe page's worst case, a tree at the host's cap (${m('cap', 'drawn')} frames drawn): data in → painted ${ms(m('cap', 'first'))}, zoom ${ms(m('cap', 'zoom'))}, search ${ms(m('cap', 'search'))}`,
  );
}

void main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});

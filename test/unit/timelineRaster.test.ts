import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeDevice, defaultDevice } from '../../extension/src/core/analysis/analyze';
import { loadSnapshotFile } from '../../extension/src/core/snapshot/load';
import { lod } from '../../extension/src/core/timeline/lod';
import { buildTimeline } from '../../extension/src/core/timeline/model';
import { bandAt, rasterize } from '../../webview/src/timeline/raster';
import type { Placed } from '../../webview/src/timeline/raster';
import { fixtures } from './helpers';

// Colours that name their band: red = 2 × (id mod 100) + 2, green 0xfe. A darker top edge halves
// every channel (green 0x7f, red = the id); hatching halves alpha only.
const colorOf = (b: number) => (0xff << 24) | (0xfe << 8) | (2 * (b % 100) + 2);
function bandOfPixel(p: number): number | undefined {
  if (p === 0) return undefined;
  const r = p & 0xff;
  const g = (p >>> 8) & 0xff;
  return g === 0xfe ? r / 2 - 1 : r - 1;
}

describe('timeline rasterizer', () => {
  for (const fx of fixtures().slice(0, 6)) {
    it(`${fx.name}: every band fills exactly its rounded rows, bottom up, and bandAt finds it`, async () => {
      const s = await loadSnapshotFile(fx.path);
      const d = defaultDevice(s);
      if (d === undefined) return;
      const m = buildTimeline(s, analyzeDevice(s, d));
      if (m.n < 2) return;
      const W = 97;
      const H = 61;
      const yMax = 1.08 * Math.max(...Array.from({ length: m.n }, (_, i) => m.analysis.replay.requested[i]!));
      const frame = lod(m, { keying: 'line', x: 'index', from: 0, to: m.n, columns: W, minBandBytes: (2 * yMax) / H });
      const p: Placed = { frame, from: 0, to: m.n };
      const view = { from: 0, to: m.n, min: 0, max: m.n };
      // Paint each (key, element) by a number of its own, so a pixel says which band it shows.
      const ids = new Map<string, number>();
      const idOf = (key: number, el: number) => {
        const k = `${key}/${el}`;
        if (!ids.has(k)) ids.set(k, ids.size);
        return ids.get(k)!;
      };
      const color = (key: number, el: number) => colorOf(idOf(key, el));
      const out = new Uint32Array(W * H);
      rasterize(out, W, H, view, yMax, [p], { color, selected: -2, highlight: 0 });
      for (let px = 0; px < W; px++) {
        const c = Math.floor(((px + 0.5) / W) * frame.columns);
        // What the column should look like: each band from its rounded running total.
        const want: (number | undefined)[] = new Array(H).fill(undefined);
        let cum = 0;
        for (let b = frame.bandOff[c]!; b < frame.bandOff[c + 1]!; b++) {
          const lo = Math.min(H, Math.round(cum * (H / yMax)));
          cum += frame.bandBytes[b]!;
          const hi = Math.min(H, Math.round(cum * (H / yMax)));
          for (let y = lo; y < hi; y++) want[y] ??= idOf(frame.bandKey[b]!, frame.band[b]!) % 100;
        }
        const got = Array.from({ length: H }, (_, y) => bandOfPixel(out[px * H + y]!));
        assert.deepEqual(got, want, `column ${px}`);
        // bandAt (pixels counted from the top) names the same band as the pixel.
        for (let y = 0; y < H; y++) {
          const b = bandAt(p, view, W, H, yMax, px, H - 1 - y);
          assert.equal(b < 0 ? undefined : idOf(frame.bandKey[b]!, frame.band[b]!) % 100, want[y], `column ${px}, row ${y}`);
        }
      }
    });
  }
});

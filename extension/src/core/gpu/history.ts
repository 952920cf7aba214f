import type { GpuSnapshot } from './types';

const CAP = 20_000;

/** Each process's device use over time, from successive snapshots: what the live timeline plots beside the allocator's figures. */
export class ProcessHistory {
  private readonly byPid = new Map<number, { t: number; used: number }[]>();

  add(s: GpuSnapshot): void {
    for (const d of s.devices)
      for (const p of d.processes) {
        if (p.used === null) continue;
        const h = this.byPid.get(p.pid) ?? [];
        // Bounded: a long run keeps its most recent half when the cap is reached.
        if (h.length >= CAP) h.splice(0, CAP / 2);
        h.push({ t: s.at, used: p.used });
        this.byPid.set(p.pid, h);
      }
  }

  /** What `pid` held at time `t` (ms): the reading nearest to it within `within` ms, else null. */
  usedAt(pid: number, t: number, within = 1500): number | null {
    const h = this.byPid.get(pid);
    if (!h?.length) return null;
    let lo = 0;
    for (let hi = h.length; lo < hi; ) {
      const mid = (lo + hi) >> 1;
      if (h[mid]!.t < t) lo = mid + 1;
      else hi = mid;
    }
    let best: { t: number; used: number } | undefined;
    for (const x of [h[lo - 1], h[lo]])
      if (x && Math.abs(x.t - t) <= within && (!best || Math.abs(x.t - t) < Math.abs(best.t - t))) best = x;
    return best?.used ?? null;
  }
}

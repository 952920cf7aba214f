// Held-out check of the library-workspace rule (core/kinds/workspaces.ts) on runs recorded with C++
// stacks: the truth is the C++ frames (a block allocated under cuBLAS's handle pool), the rule is
// what the Python stacks alone would say. Prints one JSON line per run. Usage (GPU host):
//   /tmp/node .carry/workspacesEval.js RUNS_ROOT
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeDevice, defaultDevice } from '../../../../extension/src/core/analysis/analyze';
import { Origin } from '../../../../extension/src/core/analysis/replay';
import { FrameKind } from '../../../../extension/src/core/analysis/userCode';
import { libraryWorkspaces } from '../../../../extension/src/core/kinds/workspaces';
import { readRun } from '../../../../extension/src/core/run/runFolder';
import { loadSnapshotFile } from '../../../../extension/src/core/snapshot/load';
import { backwardPhases, categorize } from '../../../../extension/src/core/timeline/categories';

// Wider than the rule's own pattern on purpose: any cuBLAS / cuBLASLt / workspace frame counts.
const TRUTH = /[Bb]las|[Ww]orkspace/;

async function main(root: string) {
  const name = root.split('/').pop()!;
  {
    for (const dir of readdirSync(root).map((d) => join(root, d))) {
      let run;
      try {
        run = readRun(dir);
      } catch {
        continue;
      }
      for (const p of run.processes) {
        const snap = p.snapshots.find((x) => x.kind === 'exit') ?? p.snapshots.at(-1);
        if (!snap) continue;
        const s = await loadSnapshotFile(snap.path);
        const d = defaultDevice(s);
        if (d === undefined) continue;
        const a = analyzeDevice(s, d);
        const base = categorize(s, a, backwardPhases(s, a));
        const e = a.replay.elements;
        const truth = new Set<number>();
        const names = new Set<string>();
        for (let k = 0; k < e.count; k++) {
          if (e.origin[k] !== Origin.Trace) continue;
          for (const f of s.stacks.get(e.stack[k]!)) {
            const n = s.frames.nameOf(f);
            if (a.classifier.kind(f) === FrameKind.Cpp && n.includes('::') && TRUTH.test(n) && /Handle|Workspace|workspace/.test(n)) {
              truth.add(k);
              names.add(n.slice(0, 120));
            }
          }
        }
        const rule = new Set(libraryWorkspaces(s, a, base, false));
        const tp = [...rule].filter((k) => truth.has(k));
        const sizes = (ks: Iterable<number>) => [...ks].map((k) => `${e.size[k]}${e.free[k]! < a.replay.n ? '(freed)' : ''}`);
        console.log(
          JSON.stringify({
            run: name,
            process: p.dir.split('/').pop(),
            events: a.replay.n,
            truth: truth.size,
            rule: rule.size,
            tp: tp.length,
            fp: sizes([...rule].filter((k) => !truth.has(k))),
            fn: sizes([...truth].filter((k) => !rule.has(k))),
            names: [...names].slice(0, 6),
          }),
        );
      }
    }
  }
}
void main(process.argv[2]!);

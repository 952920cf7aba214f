import type { At } from '../core/analysis/deviceAnalysis';
import { analyzeDevice, defaultDevice } from '../core/analysis/analyze';
import { byModule } from '../core/analysis/modules';
import { buildReport } from '../core/report';
import { breakdownJson, treeJson } from '../core/analysis/treeJson';
import { lineKey } from '../core/analysis/callNode';
import { creditParams } from '../core/analysis/params';
import { renderParamsCredit } from '../core/analysis/paramsText';
import { paramsBeside } from '../core/run/paramsFile';
import { SnapshotError } from '../core/errors';
import { breakdowns } from './breakdown';
import { paramsJson } from './paramsJson';
import { moduleJson, renderModules } from './byModule';
import { flag, intFlag, parseArgs, UsageError } from './args';
import type { Io } from './io';
import { loadForCli } from './load';
import { pickSnapshot } from './runPick';
import { renderReport } from './render';
import { jsonText, plain, plainLines } from '../shared/text';

export const ANALYZE_USAGE = `usage: headroom analyze SNAPSHOT|RUN [--device N] [--at peak|end|TRACE_INDEX] [--top K] [--json]
                        [--by line|module] [--include GLOB]... [--exclude GLOB]...

  Reports the peak, the source lines holding memory at an instant (default: the peak), the
  buckets of memory with no user frame, fragmentation and OOMs. --top 0 lists every line.
  Under a line holding a quarter or more of the memory, the library code beneath it (the model's
  classes, framework plumbing folded); --json adds each such line's "breakdown" and the whole
  call tree ("tree").
  --include/--exclude adjust which files count as your code (globs on the full path).
  --by module adds the memory by nn.Module (forward and backward), from the module scopes that
  \`headroom run\` records on torch 2.10 or newer; in --json, as "by_module".
  SNAPSHOT: a .pickle or .pickle.gz from torch.cuda.memory._dump_snapshot(), - for standard input;
  RUN: a folder of \`headroom run\` or \`python -m torch_headroom\` (its OOM snapshot, else its peak's).
  --device N      the CUDA device (default: the one with the most memory)
  --at peak|end|N the instant: the peak (default), the end, or trace event N
  --top K         lines listed (default 10)
  --json          the whole report as JSON
  Examples: headroom analyze snapshot.pickle --top 20
            headroom analyze .headroom/runs/20261127-101500-train-ab12 --by module`;

export function parseAt(v: string | undefined): At {
  if (v === undefined || v === 'peak') return 'peak';
  if (v === 'end') return 'end';
  if (/^-?\d+$/.test(v)) return Number(v);
  throw new UsageError(`--at expects peak, end or a trace index, got "${v}"`);
}

export async function analyzeCommand(argv: readonly string[], io: Io): Promise<number> {
  const p = parseArgs(argv, {
    device: { value: true },
    at: { value: true },
    top: { value: true },
    json: {},
    by: { value: true },
    include: { value: true, repeat: true },
    exclude: { value: true, repeat: true },
  });
  if (p.positional.length !== 1) throw new UsageError(ANALYZE_USAGE);
  // A run folder reads as its best snapshot, with the backward() calls the run recorded.
  const picked = pickSnapshot(p.positional[0]!);
  const path = picked.file;
  if (picked.process) io.err(`headroom: ${plain(path)}\n`);
  const at = parseAt(flag(p, 'at'));
  const top = intFlag(p, 'top') ?? 10;
  if (top < 0) throw new UsageError('--top must be 0 (all) or more');
  const s = await loadForCli(path);
  const device = intFlag(p, 'device') ?? defaultDevice(s);
  if (device === undefined) throw new UsageError(`${plain(path)} holds no device with a trace or segments: nothing to analyze`);
  if (!s.devices.includes(device))
    throw new UsageError(`device ${device} is not in ${plain(path)} (it has: ${s.devices.join(', ') || 'none'})`);
  const by = flag(p, 'by') ?? 'line';
  if (by !== 'line' && by !== 'module') throw new UsageError(`--by expects line or module, got "${by}"`);
  const rule = { include: p.flags.get('include') ?? [], exclude: p.flags.get('exclude') ?? [] };
  const analysis = analyzeDevice(s, device, rule, picked.process?.backward);
  const json = flag(p, 'json') !== undefined;
  let report;
  try {
    // The text report picks its lines itself (it lists only lines that hold memory): it gets them all.
    ({ report } = buildReport(s, analysis, at, json ? top : 0));
  } catch (e) {
    if (e instanceof RangeError) throw new UsageError(e.message);
    throw e;
  }
  const modules = by === 'module' ? byModule(s, analysis, report.at.trace_index) : undefined;
  // A run folder's params.jsonl names parameters, gradients and optimizer state (the agent's optimizer-step records).
  let records;
  try {
    records = path === '-' ? undefined : paramsBeside(path);
  } catch (e) {
    // The analysis stands without names: a params.jsonl over its cap or unreadable is said, not fatal.
    if (!(e instanceof SnapshotError)) throw e;
    io.err(`headroom: parameter names not read: ${plain(e.message)}\n`);
  }
  const params = records ? creditParams(analysis, report.at.trace_index, records) : undefined;
  const model = breakdowns(s, analysis, report, params);
  // --json is JSON (jsonText escapes what a terminal would act on); the text report is made plain, line by line.
  if (json) {
    const lines = report.lines.map((l) => {
      const b = model.lines.get(lineKey(l.file, l.line));
      return b ? { ...l, breakdown: breakdownJson(b.rows) } : l;
    });
    // The tree down to 0.1 % of the live bytes: what a reader can act on, in a bounded document.
    const tree = treeJson(model.tree.root, report.at.requested_bytes * 0.001);
    io.out(
      jsonText({
        ...report,
        lines,
        tree,
        ...(params ? { params: paramsJson(params) } : {}),
        ...(modules ? { by_module: moduleJson(modules) } : {}),
      }) + '\n',
    );
  } else {
    const named = params && params.creditedBytes > 0 ? '\n' + renderParamsCredit(params, top || 10).join('\n') + '\n' : '';
    io.out(plainLines(renderReport(report, path, top, model.lines) + named + (modules ? '\n' + renderModules(modules, top) : '')));
  }
  return 0;
}

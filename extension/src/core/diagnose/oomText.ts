import { formatBytes as b } from '../../shared/format';
import { plain } from '../../shared/text';
import type { MessageFacts } from './messageFacts';
import type { OomDiagnosis } from './oom';

/** The doctor's report as text, wrapped to read at 100 columns (the CLI, the editor's tab, MCP). */
export const WIDTH = 100;

/** Words wrapped at `width`, continuation lines indented by `indent`. A word longer than a line stays whole. */
export function wrap(text: string, width = WIDTH, indent = ''): string[] {
  const out: string[] = [];
  const lead = /^ */.exec(text)![0];
  let line = lead;
  for (const w of text.slice(lead.length).split(/ +/)) {
    if (line.trim() && line.length + 1 + w.length > width) {
      out.push(line);
      line = indent + w;
    } else line = line.trim() ? `${line} ${w}` : line + w;
  }
  if (line.trim()) out.push(line);
  return out;
}

const FORMAT_NAMES: Record<string, string> = {
  thc: 'THC (PyTorch ≤ 0.4)',
  cached: 'PyTorch 1.0–1.4 ("cached")',
  reserved: 'PyTorch 1.5–1.9 ("reserved in total")',
  'reserved-hint': 'PyTorch 1.10–2.0 ("reserved in total", max_split_size_mb hint)',
  modern: 'PyTorch 2.1+',
  async: 'cudaMallocAsync backend',
  absurd: 'size over 1 EB',
  'cuda-error': 'CUDA error (not the allocator)',
  cublas: 'cuBLAS workspace',
  fragment: 'cut after the request',
};

/** The figures a message gave, and what follows from them, as `name value` pairs. */
export function figureList(f: MessageFacts): string[] {
  const out: string[] = [];
  const add = (name: string, v: number | undefined) => v !== undefined && out.push(`${name} ${b(v)}`);
  add('request', f.request);
  add('device', f.total);
  add('free', f.free);
  add('cap', f.cap);
  add('reserved', f.reserved);
  add('allocated', f.allocated);
  add('reserved unallocated', f.slack);
  add(f.selfPid !== undefined ? `this process (pid ${f.selfPid})` : 'this process', f.selfUsed);
  for (const p of f.others) add(`pid ${p.pid}`, p.used);
  add('outside PyTorch', f.outside);
  return out;
}

/** `where`: the message's place in its text ("message 2 of 3, line 14 of train.log"). */
export function renderDiagnosis(d: OomDiagnosis, where?: string): string {
  const out = wrap(`OOM: ${d.kind} — ${d.why}`, WIDTH, '  ');
  if (d.evidence) out.push(...wrap(`  evidence: ${plain(d.evidence)}`, WIDTH, '    '));
  if (d.message) {
    const at = where ? `${plain(where)}, ` : '';
    out.push(
      ...wrap(
        `  read (${at}${FORMAT_NAMES[d.message.format] ?? d.message.format}${d.message.truncated ? ', cut short' : ''}): ${figureList(d.message.facts).join(' · ') || 'no figures'}`,
        WIDTH,
        '    ',
      ),
    );
  }
  for (const p of d.pools)
    out.push(
      `  ${p.pool} pool${p.poolId[0] || p.poolId[1] ? ` (private ${p.poolId.join(',')})` : ''}: ${b(p.freeBytes)} free of ${b(p.reservedBytes)}, largest free block ${b(p.largestFreeBytes)}`,
    );
  if (d.categories.length)
    out.push(...wrap(`  live at the OOM: ${d.categories.map((c) => `${c.category} ${b(c.bytes)}`).join(', ')}`, WIDTH, '    '));
  if (d.batch && d.kind === 'demand')
    out.push(
      ...wrap(
        `  made by the failing iteration (scales with the batch, with the request): ${b(d.batch.scaledBytes)}; before it: ${b(d.batch.fixedBytes)}`,
        WIDTH,
        '    ',
      ),
    );
  for (const l of d.topLines) out.push(`  ${plain(l.file)}:${l.line} ${plain(l.name)}: ${b(l.bytes)}`);
  out.push('Remedies:');
  for (const r of d.remedies) {
    out.push(...wrap(`  - ${r.title}`, WIDTH, '    '));
    out.push(...wrap(`      change: ${r.change}`, WIDTH, '        '));
    out.push(...wrap(`      expected: ${r.effect}`, WIDTH, '        '));
  }
  return out.join('\n') + '\n';
}

import type { ModuleBreakdown } from '../core/analysis/modules';
import { Category, CATEGORY_LABELS } from '../core/timeline/categories';
import { formatBytes } from '../shared/format';

/** `analyze --by module`'s JSON: snake_case like the rest of the report. */
export function moduleJson(b: ModuleBreakdown): unknown {
  const cats = (xs: number[]) => Object.fromEntries(CATEGORY_LABELS.map((l, i) => [l, xs[i] ?? 0]));
  return {
    recorded: b.recorded,
    total_bytes: b.totalBytes,
    in_modules_bytes: b.scopedBytes,
    categories: { total: cats(b.categories.total), in_modules: cats(b.categories.scoped) },
    modules: b.modules.map((m) => ({
      path: m.path,
      self_bytes: m.selfBytes,
      inclusive_bytes: m.inclusiveBytes,
      blocks: m.selfBlocks,
      forward_bytes: m.forwardBytes,
      backward_bytes: m.backwardBytes,
      categories: cats(m.categories),
      where: m.where && { file: m.where.file, line: m.where.line, function: m.where.name, bytes: m.where.bytes },
    })),
  };
}

/**
 * The module tree as text (the caller makes it plain): each module indented under its parent,
 * with its inclusive and self bytes and the model line that allocated most of it.
 */
export function renderModules(b: ModuleBreakdown, top: number): string {
  if (!b.recorded) {
    return 'Memory by module: this snapshot has no module scopes. Record it with `headroom run --modules on` (torch 2.10 or newer).\n';
  }
  const pct = (x: number) => (b.totalBytes > 0 ? `${((100 * x) / b.totalBytes).toFixed(1)}%` : '-');
  const act = b.categories.total[Category.Activation]!;
  const actIn = b.categories.scoped[Category.Activation]!;
  const out = [
    `Memory by module: ${formatBytes(b.scopedBytes)} of ${formatBytes(b.totalBytes)} live (${pct(b.scopedBytes)}) was allocated inside a module` +
      (act > 0 ? `; activations ${((100 * actIn) / act).toFixed(1)}% in modules of ${formatBytes(act)}` : ''),
    '   inclusive       self  fwd/bwd  module  (where)',
  ];
  const shown = b.modules.filter((m) => m.inclusiveBytes > 0);
  let rows = 0;
  for (const m of shown) {
    if (top > 0 && rows++ >= top) {
      out.push(`  … ${shown.length - top} more (--top 0 lists all)`);
      break;
    }
    const depth = m.path.split('.').length - 1;
    const split =
      m.selfBytes > 0 ? `${Math.round((100 * m.forwardBytes) / m.selfBytes)}/${Math.round((100 * m.backwardBytes) / m.selfBytes)}` : '';
    const where = m.where ? `  (${m.where.file}:${m.where.line} ${m.where.name})` : '';
    out.push(
      `${formatBytes(m.inclusiveBytes).padStart(12)} ${(m.selfBytes ? formatBytes(m.selfBytes) : '').padStart(10)} ${split.padStart(8)}  ${'  '.repeat(depth)}${m.path}${where}`,
    );
  }
  const outside = b.totalBytes - b.scopedBytes;
  out.push(
    `${formatBytes(outside).padStart(12)} ${''.padStart(10)} ${''.padStart(8)}  (outside any module: parameters, optimizer state, data, the loss)`,
  );
  return out.join('\n') + '\n';
}

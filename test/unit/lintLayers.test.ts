import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from './helpers';

// The linter's layers import only downward: syntax/ (the tree reader) ← analysis/ (facts, data
// flow, summaries) ← rules/ ← the driver (lint.ts, session.ts, crossCheck.ts), with types.ts and
// notLinted.ts shared below the analyses. A rule that needs the driver, or a fact that needs a
// rule, is a circle waiting to happen: this says where.
const LINT = join(ROOT, 'extension', 'src', 'core', 'lint');
const LAYER: Record<string, number> = { syntax: 0, shared: 1, analysis: 2, rules: 3, driver: 4 };
const SHARED = new Set(['types.ts', 'notLinted.ts', 'glob.ts']);

function layerOf(file: string): number {
  const r = relative(LINT, file).replace(/\\/g, '/');
  const top = r.split('/')[0]!;
  if (top in LAYER) return LAYER[top]!;
  return SHARED.has(r) ? LAYER.shared! : LAYER.driver!;
}

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? files(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : [],
  );
}

describe('the linter’s layers', () => {
  it('every import inside core/lint goes to the same layer or one below', () => {
    const up: string[] = [];
    const all = files(LINT);
    assert.ok(all.length > 40);
    for (const f of all) {
      for (const m of readFileSync(f, 'utf8').matchAll(/from '(\.{1,2}\/[^']+)'/g)) {
        const target = resolve(dirname(f), m[1]!);
        if (!target.startsWith(LINT)) continue;
        if (layerOf(target + '.ts') > layerOf(f)) up.push(`${relative(LINT, f)} → ${relative(LINT, target)}`);
      }
    }
    assert.deepEqual(up, []);
  });

  it('the layers are where the docs say', () => {
    for (const dir of ['syntax', 'analysis', 'rules']) assert.ok(readdirSync(join(LINT, dir)).length > 5, dir);
    assert.ok(readdirSync(join(LINT, 'rules')).filter((f) => /^hr\d{3}\.ts$/.test(f)).length >= 18);
  });
});

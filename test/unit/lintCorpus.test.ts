import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import type { PythonParser } from '../../extension/src/core/lint/syntax/parser';
import type { Finding } from '../../extension/src/core/lint/types';
import { ROOT } from './helpers';
import { lintWith, loadParser } from './lintHelpers';

// Real files from public repositories, pinned to the commit before an upstream memory fix (or
// correct look-alikes), labelled by reading the code before the linter ran on them. Each file's
// first line names its source, licence and fix; labels.json beside them holds the expected findings.
const CORPUS = join(ROOT, 'test', 'fixtures', 'lintcorpus');
// The held-out sets, each from repositories in none of the others, labelled before the linter ran on
// them and measured once (docs/measurements.md): the first and second are tuning data since; the
// third is for the next first measurement.
const HELDOUT = join(ROOT, 'test', 'fixtures', 'lintheld');
const HELDOUT2 = join(ROOT, 'test', 'fixtures', 'lintheld2');
const HELDOUT3 = join(ROOT, 'test', 'fixtures', 'lintheld3');

interface Label {
  rule: string;
  line: number;
  why: string;
}
interface Entry {
  file: string;
  text: string;
  labels: Label[];
}

function corpus(root = CORPUS): Entry[] {
  const out: Entry[] = [];
  for (const dir of readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory())) {
    const labels = JSON.parse(readFileSync(join(root, dir.name, 'labels.json'), 'utf8')) as {
      files: Record<string, { findings: Label[] }>;
    };
    for (const [file, l] of Object.entries(labels.files))
      out.push({ file: `${dir.name}/${file}`, text: readFileSync(join(root, dir.name, file), 'utf8'), labels: l.findings });
  }
  return out.sort((a, b) => a.file.localeCompare(b.file));
}

/** The rules the labels speak for: findings of other rules (deprecated APIs, …) are not scored. */
const SCORED = new Set(['HR001', 'HR002', 'HR004', 'HR005', 'HR011', 'HR013', 'HR014', 'HR015']);
const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(0)} %` : '-');

describe('lint on a labelled corpus of real code', () => {
  let parser: PythonParser;
  const entries = corpus();
  before(async () => {
    parser = await loadParser();
  });

  const heldout = corpus(HELDOUT);
  const heldout2 = corpus(HELDOUT2);
  const heldout3 = corpus(HELDOUT3);

  /** Each file names its source and licence, each label points at a line of code, no source twice; the repositories it reads. */
  const checkForm = (entries: readonly Entry[]): Set<string> => {
    const sources = new Set<string>();
    const repos = new Set<string>();
    for (const e of entries) {
      const head = e.text.split('\n')[0]!;
      assert.match(
        head,
        /^# source: https:\/\/github\.com\/\S+\/blob\/[0-9a-f]{7,40}\/\S+.* · licence: (MIT|Apache-2\.0|BSD-[23]-Clause)\b/,
        e.file,
      );
      const src = /github\.com\/([^/]+\/[^/]+)\/blob\/[0-9a-f]+\/(\S+)/.exec(head)!;
      repos.add(src[1]!.toLowerCase());
      const key = `${src[1]}/${src[2]} ${e.labels.length ? 'pos' : 'clean'}`;
      assert.ok(!sources.has(key), `${e.file}: the same source twice (${key})`);
      sources.add(key);
      for (const l of e.labels) {
        assert.ok(SCORED.has(l.rule), `${e.file}: ${l.rule}`);
        assert.match(e.text.split('\n')[l.line - 1] ?? '', /\S/, `${e.file}:${l.line} is blank`);
      }
    }
    return repos;
  };

  /** Recall and precision on the labelled rules at warning and error level, printed; the precision returned. */
  const score = (name: string, entries: readonly Entry[]): number => {
    const byRule = new Map<string, { found: number; labelled: number }>();
    let tp = 0;
    let fp = 0;
    const missed: string[] = [];
    const extra: string[] = [];
    for (const e of entries) {
      const findings: Finding[] = lintWith(parser, e.text).filter((f) => f.severity !== 'info' && SCORED.has(f.rule));
      const hit = (l: Label) => findings.some((f) => f.rule === l.rule && f.start.line + 1 === l.line);
      for (const l of e.labels) {
        const r = byRule.get(l.rule) ?? { found: 0, labelled: 0 };
        r.labelled++;
        if (hit(l)) r.found++;
        else missed.push(`${e.file}:${l.line} ${l.rule}`);
        byRule.set(l.rule, r);
      }
      for (const f of findings) {
        if (e.labels.some((l) => l.rule === f.rule && l.line === f.start.line + 1)) tp++;
        else {
          fp++;
          extra.push(`${e.file}:${f.start.line + 1} ${f.rule}`);
        }
      }
    }
    const labelled = [...byRule.values()].reduce((a, r) => a + r.labelled, 0);
    const found = [...byRule.values()].reduce((a, r) => a + r.found, 0);
    const lines = [
      `${name}: ${entries.length} files, ${entries.filter((e) => e.labels.length).length} with labelled bugs, ${labelled} labels`,
      `recall ${found}/${labelled} (${pct(found, labelled)}); precision ${tp}/${tp + fp} (${pct(tp, tp + fp)}) at warning and error level`,
      ...[...byRule].sort().map(([r, x]) => `  ${r}: ${x.found}/${x.labelled} (${pct(x.found, x.labelled)})`),
      `missed: ${missed.join(', ') || 'none'}`,
      `unlabelled findings: ${extra.join(', ') || 'none'}`,
    ];
    console.log(lines.join('\n'));
    return tp + fp ? tp / (tp + fp) : 1;
  };

  it('every file names its source and licence, and every label points at a line of code; the held-out sets share no repository with the tuned one or each other', () => {
    assert.ok(entries.length >= 40, `${entries.length} files`);
    assert.ok(
      heldout.length >= 40 && heldout2.length >= 35 && heldout3.length >= 40,
      `${heldout.length}, ${heldout2.length} and ${heldout3.length} held-out files`,
    );
    const tuned = checkForm(entries);
    const held = checkForm(heldout);
    const held2 = checkForm(heldout2);
    assert.deepEqual(
      [...held].filter((r) => tuned.has(r)),
      [],
    );
    assert.deepEqual(
      [...held2].filter((r) => tuned.has(r) || held.has(r)),
      [],
    );
    const held3 = checkForm(heldout3);
    assert.deepEqual(
      [...held3].filter((r) => tuned.has(r) || held.has(r) || held2.has(r)),
      [],
    );
  });

  it('recall (printed) and precision (≥ 90 %) on the labelled rules, with no crash', () => {
    const precision = score('tuned corpus', entries);
    // The goals: precision ≥ 90 % holds and is kept; recall (goal ≥ 85 %) is printed above.
    assert.ok(precision >= 0.9, `precision ${pct(precision * 100, 100)}`);
  });

  it('recall and precision on the held-out corpora, printed, with no crash', () => {
    score('first held-out corpus (measured once, tuning data since)', heldout);
    score('second held-out corpus (measured once, tuning data since)', heldout2);
    score('third held-out corpus', heldout3);
  });
});

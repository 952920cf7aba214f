import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { explainOomText } from '../../extension/src/core/diagnose/explainText';
import { messageFigures } from '../../extension/src/core/diagnose/oomJson';
import { ROOT } from './helpers';

// The OOM doctor on real messages from public threads (test/fixtures/oom/messages/README.md),
// labelled by hand from their figures and threads before the doctor ran on them.
const CORPUS = join(ROOT, 'test', 'fixtures', 'oom', 'messages');

interface LabelOom {
  figures: Record<string, unknown>;
  class: string;
  remedies_ok: string[];
}
interface Case {
  name: string;
  text: string;
  label: { source: string; ooms: LabelOom[] };
}

function load(set: string): Case[] {
  const dir = join(CORPUS, set);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.label.json'))
    .sort()
    .map((f) => {
      const name = f.replace(/\.label\.json$/, '');
      return {
        name,
        text: readFileSync(join(dir, `${name}.txt`), 'utf8'),
        label: JSON.parse(readFileSync(join(dir, f), 'utf8')) as Case['label'],
      };
    });
}

// Sizes as the labels write them ("20.00 MiB", "0 bytes"), read by the label's own rule.
const UNIT: Record<string, number> = { bytes: 1, KiB: 2 ** 10, MiB: 2 ** 20, GiB: 2 ** 30 };
function bytes(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const m = /^(\d+(?:\.\d+)?) (bytes|KiB|MiB|GiB)$/.exec(v);
  assert.ok(m, `a label figure that is not a printed size: ${v}`);
  return Math.round(Number(m[1]) * UNIT[m[2]!]!);
}
function labelFigures(f: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(f))
    out[k] = k === 'processes' ? (v as { pid: number | null; used: string }[]).map((p) => ({ pid: p.pid, used: bytes(p.used) })) : bytes(v);
  return out;
}

interface Score {
  messages: number;
  agree: number;
  figuresExact: number;
  inapplicable: string[];
  misses: string[];
}

function score(cases: Case[]): Score {
  const s: Score = { messages: 0, agree: 0, figuresExact: 0, inapplicable: [], misses: [] };
  for (const c of cases) {
    const { found } = explainOomText(c.text);
    c.label.ooms.forEach((want, i) => {
      s.messages++;
      const got = found[i];
      if (!got) return void s.misses.push(`${c.name}#${i + 1}: not found`);
      try {
        assert.deepEqual(messageFigures(got.message), labelFigures(want.figures));
        s.figuresExact++;
      } catch {
        s.misses.push(
          `${c.name}#${i + 1}: figures ${JSON.stringify(messageFigures(got.message))} vs ${JSON.stringify(labelFigures(want.figures))}`,
        );
      }
      if (got.diagnosis.kind === want.class) s.agree++;
      else s.misses.push(`${c.name}#${i + 1}: ${got.diagnosis.kind}, labelled ${want.class}`);
      for (const r of got.diagnosis.remedies) if (!want.remedies_ok.includes(r.id)) s.inapplicable.push(`${c.name}#${i + 1}: ${r.id}`);
    });
    if (found.length > c.label.ooms.length)
      s.misses.push(`${c.name}: ${found.length - c.label.ooms.length} message(s) found beyond the labelled ones`);
  }
  return s;
}

const report = (s: Score) =>
  `${s.agree}/${s.messages} verdicts agree (${((100 * s.agree) / s.messages).toFixed(1)}%), figures exact on ${s.figuresExact}/${s.messages}, ${s.inapplicable.length} inapplicable remedies\n${[...s.misses, ...s.inapplicable.map((x) => `inapplicable ${x}`)].join('\n')}`;

describe('the OOM doctor on real pasted messages', () => {
  const tuned = load('tuned');

  it('the tuned corpus: at least 40 messages from public threads, each with its source', () => {
    assert.ok(tuned.reduce((x, c) => x + c.label.ooms.length, 0) >= 40);
    for (const c of tuned) {
      assert.match(c.text, /^Source: https:\/\/\S+/, c.name);
      assert.equal(c.text.split('\n')[0]!.slice('Source: '.length).trim(), c.label.source, c.name);
    }
  });

  it('the tuned corpus: every message found with its figures exact, ≥ 90 % verdicts as labelled, no inapplicable remedy', (t) => {
    const s = score(tuned);
    t.diagnostic(report(s));
    assert.equal(s.figuresExact, s.messages, report(s));
    assert.ok(s.agree >= 0.9 * s.messages, report(s));
    assert.deepEqual(s.inapplicable, [], report(s));
  });

  // The first held-out set was measured once (70.4 % verdicts, 74 % figures exact, 8 inapplicable
  // remedies: docs/oom-doctor.md), then its failures were studied and fixed: it is tuning material
  // now, held to the tuned set's standard except for remedies its labellers judged apart.
  it('the first held-out set, since used for tuning: figures exact, ≥ 90 % verdicts', (t) => {
    const s = score(load('heldout1'));
    t.diagnostic(report(s));
    assert.equal(s.figuresExact, s.messages, report(s));
    assert.ok(s.agree >= 0.9 * s.messages, report(s));
    assert.ok(s.inapplicable.length <= 4, report(s));
  });

  // Collected after that and measured once, after the doctor was final: 24/26 verdicts (92.3 %),
  // figures exact on 24/26, 2 inapplicable remedies (NCCL's "Cuda failure 2" was then read too). The
  // floors were set before that run: they guard against regressions, they are not the target.
  it('the second held-out set (sources neither set used): figures and verdicts above their floors', (t) => {
    const cases = load('heldout2');
    const s = score(cases);
    t.diagnostic(report(s));
    assert.ok(s.messages >= 20);
    assert.ok(s.figuresExact >= 0.85 * s.messages, report(s));
    assert.ok(s.agree >= 0.75 * s.messages, report(s));
    assert.ok(s.inapplicable.length <= 0.15 * s.messages, report(s));
  });
});

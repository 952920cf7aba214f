import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { explainOomText, MAX_EXPLAINED } from '../../extension/src/core/diagnose/explainText';
import { parseOomMessages } from '../../extension/src/core/oomMessage';
import type { OomMessage } from '../../extension/src/core/oom/types';
import { ROOT } from './helpers';

// The parser on the ways people paste: every format, wrapped at any column, behind any line prefix,
// in HTML or with colour codes, cut short. Messages are PyTorch's own, raised on an H100/H200 (the
// captures' truth files) or quoted in the format doc §14; the expected figures are read off the
// printed text by the test's own rule.
const SNAP = join(ROOT, 'test', 'fixtures', 'snapshots');
const truth = (name: string) =>
  (JSON.parse(readFileSync(join(SNAP, `${name}.truth.json`), 'utf8')) as { oom: { message: string } }).oom.message;
const PRIVATE = truth('private_pool_oom'); // 2.11: allowed, private pools, "this process"
const DEMAND = truth('demand_oom');
const CACHED =
  'RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 10.92 GiB total capacity; 9.95 GiB already allocated; 15.38 MiB free; 254.89 MiB cached)';
const HINTED =
  'RuntimeError: CUDA out of memory. Tried to allocate 2.00 MiB (GPU 1; 15.78 GiB total capacity; 14.56 GiB already allocated; 1.75 MiB free; 14.71 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF';
const CAPACTY =
  'torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB. GPU 0 has a total capacty of 79.15 GiB of which 512.00 MiB is free. Process 1234 has 78.00 GiB memory in use. Of the allocated memory 76.00 GiB is allocated by PyTorch, and 1.50 GiB is reserved by PyTorch but unallocated.';

const UNIT: Record<string, number> = { bytes: 1, KiB: 2 ** 10, MiB: 2 ** 20, GiB: 2 ** 30 };
/** Every size printed in a text, in order, as bytes. */
const sizes = (text: string) =>
  [...text.matchAll(/(\d+(?:\.\d+)?) (bytes|KiB|MiB|GiB)/g)].map((m) => Math.round(Number(m[1]) * UNIT[m[2]!]!));
/** The figures a parse holds, in the order the message prints them. */
function figures(m: OomMessage): number[] {
  const modern = [
    m.triedBytes,
    m.totalBytes,
    m.freeBytes,
    ...m.processes.map((p) => p.usedBytes),
    m.allowedBytes,
    m.allocatedBytes,
    m.privatePoolBytes,
    m.reservedUnallocatedBytes,
  ];
  const legacy = [m.triedBytes, m.totalBytes, m.allocatedBytes, m.freeBytes, m.allowedBytes, m.reservedBytes ?? m.reservedUnallocatedBytes];
  return (m.format === 'modern' ? modern : legacy).filter((x): x is number => x !== undefined);
}
const one = (text: string) => {
  const ms = parseOomMessages(text);
  assert.equal(ms.length, 1, `one message in ${JSON.stringify(text.slice(0, 300))}`);
  return ms[0]!;
};
/** Hard-wrapped at exactly `col` characters, words cut anywhere, as a terminal copy does. */
const wrapAt = (text: string, col: number, prefix = '') =>
  text
    .match(new RegExp(`.{1,${col}}`, 'g'))!
    .map((l) => prefix + l)
    .join('\n');

describe('OOM messages as pasted', () => {
  it('every figure of each format, in the order printed', () => {
    for (const [text, format] of [
      [PRIVATE, 'modern'],
      [DEMAND, 'modern'],
      [CAPACTY, 'modern'],
      [CACHED, 'cached'],
      [HINTED, 'reserved-hint'],
    ] as const) {
      const m = one(text);
      assert.equal(m.format, format);
      assert.deepEqual(figures(m), sizes(text.replace(/\(https?:[^)]*\)/g, '')));
    }
    assert.equal(one(CAPACTY).processes[0]!.pid, 1234);
    assert.equal(one(HINTED).device, 1);
  });

  it('wrapped at every column from 8 to 140, words cut anywhere: the same figures', () => {
    for (const text of [PRIVATE, CACHED, HINTED]) {
      const want = figures(one(text));
      for (let col = 8; col <= 140; col++) assert.deepEqual(figures(one(wrapAt(text, col))), want, `wrapped at ${col}`);
    }
  });

  it('a prefix on every line (torchrun ranks, loggers, vLLM workers, quotes), wrapped: the same figures', () => {
    const want = figures(one(PRIVATE));
    const prefixes = [
      '[rank3]: ',
      '[default0]:',
      '2024-05-01 10:11:12,345 ERROR ',
      '[2024-05-01T10:11:12.345Z] ',
      '(VllmWorkerProcess pid=486731) ERROR 03-19 10:55:18 [multiproc_worker_utils.py:242] ',
      '> > ',
      '0: ',
      'E1126 10:11:12.123456  4242 trainer.py:88] ',
    ];
    for (const p of prefixes)
      for (const col of [37, 80, 120]) assert.deepEqual(figures(one(wrapAt(PRIVATE, col, p))), want, `${p} at ${col}`);
  });

  it('colour codes (with or without their ESC), HTML cells, entities and line breaks, text in any language around it', () => {
    const want = figures(one(HINTED));
    const html = `<table><tr><td>${HINTED.replace(/>>/g, '&gt;&gt;').replace(/ GiB/g, '&nbsp;GiB').replace('(GPU 1;', '(GPU 1;<br>')}</td></tr></table>`;
    for (const text of [
      `\x1b[31m${HINTED}\x1b[0m`,
      `[1;31m${HINTED.replace('already', 'already[0m')}`,
      html,
      `训练时报错：\n${HINTED}\n메모리가 부족합니다`,
    ])
      assert.deepEqual(figures(one(text)), want, text.slice(0, 80));
  });

  it('pasted without its first sentence, or without "CUDA out of memory."', () => {
    assert.deepEqual(figures(one(HINTED.slice(HINTED.indexOf('Tried')))), figures(one(HINTED)));
    const m = one('(GPU 0; 15.75 GiB total capacity; 79.11 MiB already allocated; 3.62 MiB free; 86.00 MiB reserved in total by PyTorch)');
    assert.equal(m.triedBytes, undefined);
    assert.equal(m.totalBytes, Math.round(15.75 * 2 ** 30));
    assert.equal(one(PRIVATE.slice(PRIVATE.indexOf('GPU 0 has'))).allowedBytes, one(PRIVATE).allowedBytes);
  });

  it('cut short anywhere: never a wrong figure, only fewer', () => {
    const whole = one(PRIVATE);
    for (let n = PRIVATE.indexOf('Tried') + 40; n < PRIVATE.length; n += 3) {
      const ms = parseOomMessages(PRIVATE.slice(0, n));
      assert.ok(ms.length <= 1);
      const m = ms[0];
      if (!m) continue;
      for (const k of [
        'triedBytes',
        'totalBytes',
        'freeBytes',
        'allowedBytes',
        'allocatedBytes',
        'privatePoolBytes',
        'reservedUnallocatedBytes',
      ] as const)
        if (m[k] !== undefined) assert.equal(m[k], whole[k], `${k} cut at ${n}`);
      m.processes.forEach((p, i) => assert.deepEqual(p, whole.processes[i]));
    }
  });

  it('the formats without figures, and the others', () => {
    const kinds = (t: string) => parseOomMessages(t).map((m) => m.format);
    assert.deepEqual(kinds('RuntimeError: cuda runtime error (2) : out of memory at /pytorch/aten/src/THC/generic/THCStorage.cu:58'), [
      'thc',
    ]);
    // The runtime's explanation names cudaErrorMemoryAllocation again: still one message.
    assert.deepEqual(
      kinds(
        "RuntimeError: CUDA error: out of memory\nSearch for `cudaErrorMemoryAllocation' in https://docs.nvidia.com/cuda/ for more information.\nCUDA kernel errors might be asynchronously reported",
      ),
      ['cuda-error'],
    );
    assert.deepEqual(kinds('RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`'), ['cublas']);
    assert.deepEqual(kinds('torch.OutOfMemoryError: CUDA out of memory. Tried to allocate more than 1EB memory.'), ['absurd']);
    assert.deepEqual(kinds('torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a tot'), ['fragment']);
    const a = one(
      'Allocation on device 0 would exceed allowed memory. (out of memory)\nCurrently allocated     : 6.00 GiB\nRequested               : 2.00 GiB\nDevice limit            : 79.15 GiB\nFree (according to CUDA): 512.00 MiB\nPyTorch limit (set by user-supplied memory fraction)\n                        : 7.00 GiB',
    );
    assert.deepEqual([a.format, a.allocatedBytes, a.requestedBytes, a.allowedBytes], ['async', 6 * 2 ** 30, 2 * 2 ** 30, 7 * 2 ** 30]);
    // Other allocators' words are not CUDA OOMs.
    assert.deepEqual(
      kinds(
        'RuntimeError: [enforce fail at alloc_cpu.cpp:75] DefaultCPUAllocator: not enough memory: you tried to allocate 1073741824 bytes.',
      ),
      [],
    );
    assert.deepEqual(
      kinds(
        'RuntimeError: MPS backend out of memory (MPS allocated: 17.86 GB, other allocations: 1.43 GB, max allowed: 18.13 GB). Tried to allocate 256 bytes on shared pool.',
      ),
      [],
    );
  });

  it('several messages in one log, in order, each with its own place', () => {
    const log = `epoch 1\n${CACHED}\nretrying with a smaller batch\n${wrapAt(PRIVATE, 90, '[rank1]: ')}\n`;
    const ms = parseOomMessages(log);
    assert.deepEqual(
      ms.map((m) => m.format),
      ['cached', 'modern'],
    );
    assert.ok(ms[0]!.end <= ms[1]!.offset);
    assert.equal(log.slice(ms[0]!.offset, ms[0]!.end), CACHED.slice(CACHED.indexOf('CUDA')));
  });

  it('a long log costs one pass: a million lines of chatter around a message', () => {
    const chatter = 'step 1 loss 0.5 lr 1e-4\n'.repeat(1_000_000);
    const ms = parseOomMessages(chatter + DEMAND + '\n' + chatter);
    assert.equal(ms.length, 1);
    assert.equal(ms[0]!.offset, chatter.length);
  });
});

describe('hostile texts cost a pass, not a pass per message', () => {
  it('two hundred thousand message heads on one line, a million "memory" lines, entities and tags without end', () => {
    const texts = [
      'CUDA out of memory. Tried to allocate 2.00 MiB (GPU 0; '.repeat(200_000),
      'memory\n'.repeat(1_000_000),
      'If reserved memory is >> allocated memory try setting '.repeat(100_000),
      '&#1234567;&gt;&amp;<a '.repeat(200_000) + 'CUDA out of memory. Tried to allocate 2.00 MiB',
      'CUDA out of memory. Tried to allocate 2.00 MiB. GPU 0 has a total capacity of 79.00 GiB of which 1.00 MiB is free. ' +
        'Process 1 has 1.00 GiB memory in use. '.repeat(100_000),
    ];
    for (const t of texts) assert.ok(parseOomMessages(t).length <= 200_000);
    // The doctor reads the first MAX_EXPLAINED of them and says how many more there were.
    const many = explainOomText('RuntimeError: CUDA error: out of memory\n'.repeat(5000));
    assert.deepEqual([many.found.length, many.omitted], [MAX_EXPLAINED, 5000 - MAX_EXPLAINED]);
  });
});

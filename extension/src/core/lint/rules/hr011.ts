import type { SyntaxNode } from '../syntax/syntaxNode';
import { calleeOf, nodesOf, occurrences } from '../syntax/nodeIndex';
import { findingAt } from '../types';
import type { Finding, RuleContext } from '../types';
import { keyword } from './kwargs';
import { defineRule } from './rule';
import { classOfMethod } from '../analysis/scopes';
import type { FileKey } from './rule';

const DATASET = /(^|\.)(Iterable)?Dataset$/;

/** A CUDA placement in an expression: `.cuda()`, `.to("cuda…")`/`.to(device)`, `device="cuda"`. */
function cudaPlacement(c: SyntaxNode): boolean {
  const f = calleeOf(c).node;
  const method = f?.type === 'attribute' ? f.childForFieldName('attribute')?.text : undefined;
  if (method === 'cuda') return true;
  const first = c.childForFieldName('arguments')?.namedChild(0);
  // To the device of a tensor at hand (`eos.to(device=item["source"].device)`): where that tensor is, a CPU one in a worker.
  const target = first?.type === 'keyword_argument' ? first.childForFieldName('value')?.text : first?.text;
  if (target && /\.device$/.test(target) && !/^self\.device$/.test(target)) return false;
  if (method === 'to' && first && (/^["']cuda/.test(first.text) || /device/i.test(first.text))) return true;
  // device="cuda", or a device variable (`device=self.device`, which a Dataset sets to CUDA when it is there).
  const dev = keyword(c, 'device')?.childForFieldName('value')?.text ?? '';
  return /^["']cuda/.test(dev) || /^(self\.)?\w*(device|dev)$/i.test(dev);
}

/** The file's DataLoader calls, found from the text. */
function dataLoaders(file: SyntaxNode, text: string): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  if (!text.includes('DataLoader')) return out;
  for (const n of occurrences(file, /\bDataLoader\s*\(/)) {
    const c = n.parent?.type === 'attribute' ? n.parent.parent : n.parent;
    if (c?.type === 'call') out.push(c);
  }
  return out;
}

/** Methods of a Dataset that its DataLoader's workers run. */
const DATASET_HOOKS = ['__getitem__', '__getitems__', '__iter__', '__next__', 'collate_fn', 'collate', 'collater'];

// One pass over the text (a session asks on every edit): the keywords and Compose lists, each match
// checked to start a word by hand (a \b in the pattern doubles its cost on a 5,000-line file).
// The name after a keyword is read ahead, not taken: `transform = Compose([...])` has a list to read.
const WORKER_NAMES =
  /(collate_fn|worker_init_fn|target_transform|transforms?)\s*=\s*(?=(?:self\.)?(\w+)(\s*\()?)|Compose\(\s*\[([^\]]*)\]/g;
type WorkerNames = { fns: Set<string>; transforms: Set<string>; spans: (readonly [number, number])[] };
let lastNames: { text: string; names: WorkerNames } | undefined;

/**
 * What else runs in the workers, named in the file's text: functions handed to a DataLoader
 * (`collate_fn=`, `worker_init_fn=`), and classes used as transforms (`transform=Cls(…)`,
 * `target_transform=`, `Compose([Cls(…), …])`), whose `__call__` the Dataset runs per item.
 */
function workerNames(text: string): WorkerNames {
  // The session's file key and the rule read the same text in one re-lint: read once.
  if (lastNames?.text === text) return lastNames.names;
  const fns = new Set<string>();
  const transforms = new Set<string>();
  const spans: (readonly [number, number])[] = [];
  for (const m of text.matchAll(WORKER_NAMES)) {
    if (m.index > 0 && /\w/.test(text[m.index - 1]!)) continue;
    // Where it was read: the match and the name read ahead of it (a Compose list may span lines).
    spans.push([m.index, m.index + m[0].length + (m[2]?.length ?? 0) + 16]);
    if (m[4] !== undefined) for (const c of m[4].matchAll(/(\w+)\s*\(/g)) transforms.add(c[1]!);
    else if (m[1] === 'collate_fn' || m[1] === 'worker_init_fn') fns.add(m[2]!);
    else if (m[3]) transforms.add(m[2]!);
  }
  lastNames = { text, names: { fns, transforms, spans } };
  return lastNames.names;
}

/** What HR011's findings depend on outside the statement they are in (the DataLoaders' worker settings, what runs in the workers), and where it is. */
export function workersKey(file: SyntaxNode, text: string): FileKey {
  const w = workerNames(text);
  const loaders = dataLoaders(file, text);
  return {
    key:
      loaders.map((c) => c.text).join('|') +
      (text.includes('set_start_method') && /set_start_method\(\s*["']spawn/.test(text) ? '|spawn' : '') +
      `|${[...w.fns].join(',')}|${[...w.transforms].join(',')}`,
    spans: [...loaders.map((c) => [c.startIndex, c.endIndex] as const), ...w.spans],
    data: w,
  };
}

/** No text without one of these can change workersKey. */
export const WORKER_WORDS = ['DataLoader', 'set_start_method', 'collate_fn', 'worker_init_fn', 'transform', 'Compose'];

/** Whether a DataLoader in the file runs workers in forked processes. */
function forkedWorkers(ctx: RuleContext): boolean {
  if (/set_start_method\(\s*["']spawn/.test(ctx.text)) return false;
  return dataLoaders(ctx.file, ctx.text).some((c) => {
    const n = Number(keyword(c, 'num_workers')?.childForFieldName('value')?.text);
    return n > 0 && !keyword(c, 'multiprocessing_context');
  });
}

/** The Dataset class whose method `def` is. */
function datasetOf(def: SyntaxNode, ctx: RuleContext): SyntaxNode | undefined {
  const cls = classOfMethod(def);
  const bases = cls?.childForFieldName('superclasses')?.namedChildren ?? [];
  return bases.some((b) => b && DATASET.test(ctx.qualify(b) ?? b.text)) ? cls : undefined;
}

/** How a function runs in the workers, in words, or undefined when it does not. */
function workerEntry(def: SyntaxNode, name: string, ctx: RuleContext, names: () => WorkerNames): string | undefined {
  if (DATASET_HOOKS.includes(name) && datasetOf(def, ctx)) return name;
  // A collate hook of a data class from another library (texar's `DataBase`, whose loader calls it in its workers).
  if (
    /^(collate|collate_fn|collater)$/.test(name) &&
    (classOfMethod(def)?.childForFieldName('superclasses')?.namedChildren ?? []).some((b) => /Data/.test(b?.text ?? ''))
  )
    return `${name} (a data class's collate hook)`;
  if (names().fns.has(name)) return `${name} (run by the DataLoader's workers)`;
  const cls = classOfMethod(def)?.childForFieldName('name')?.text;
  if ((name === '__call__' || name === 'forward') && cls && names().transforms.has(cls))
    return `${cls}.${name} (a transform the Dataset runs per item)`;
  return undefined;
}

/** HR011 cuda-in-dataloader-worker: CUDA work in a Dataset runs in every worker process. */
export function hr011(ctx: RuleContext): Finding[] {
  const out: Finding[] = [];
  let forked: boolean | undefined;
  let names: WorkerNames | undefined;
  // From the methods (not the class), so that re-linting one method finds the same.
  for (const def of nodesOf(ctx.root, 'function_definition')) {
    // The names the session's file key read, while it stands; else read here.
    const where = workerEntry(
      def,
      def.childForFieldName('name')?.text ?? '',
      ctx,
      () => (names ??= (ctx.fileData?.('HR011') as WorkerNames | undefined) ?? workerNames(ctx.text)),
    );
    if (!where) continue;
    for (const c of nodesOf(def, 'call')) {
      if (!cudaPlacement(c)) continue;
      forked ??= forkedWorkers(ctx);
      out.push(
        findingAt(
          'HR011',
          forked ? 'error' : 'warning',
          c,
          `CUDA in ${where}: DataLoader workers run this in separate processes, each creating its own CUDA context (hundreds of MiB of device memory per worker)${forked ? ', and CUDA cannot be re-initialized in a forked worker' : ''}. Return CPU tensors and move the batch in the training loop (pin_memory=True, .to(device, non_blocking=True)).`,
        ),
      );
    }
  }
  return out;
}

export const HR011 = defineRule({
  id: 'HR011',
  name: 'cuda-in-dataloader-worker',
  severities: ['warning', 'error'],
  dependsOn: ['file'],
  fileKey: workersKey,
  fileKeyWords: WORKER_WORDS,
  run: hr011,
});

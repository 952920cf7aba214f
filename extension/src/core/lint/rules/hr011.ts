import type { Node } from '@vscode/tree-sitter-wasm';
import { findingAt } from '../types';
import type { Finding, RuleContext } from '../types';
import { keyword } from './kwargs';

const DATASET = /(^|\.)(Iterable)?Dataset$/;

/** A CUDA placement in an expression: `.cuda()`, `.to("cuda…")`/`.to(device)`, `device="cuda"`. */
function cudaPlacement(c: Node): boolean {
  const f = c.childForFieldName('function');
  const method = f?.type === 'attribute' ? f.childForFieldName('attribute')?.text : undefined;
  if (method === 'cuda') return true;
  const first = c.childForFieldName('arguments')?.namedChild(0);
  if (method === 'to' && first && (/^["']cuda/.test(first.text) || /device/i.test(first.text))) return true;
  const dev = keyword(c, 'device')?.childForFieldName('value')?.text ?? '';
  return /^["']cuda/.test(dev);
}

/** Whether a DataLoader in the file runs workers in forked processes. */
function forkedWorkers(ctx: RuleContext): boolean {
  if (/set_start_method\(\s*["']spawn/.test(ctx.text)) return false;
  return ctx.file.descendantsOfType('call').some((c) => {
    if (!c || !/(^|\.)DataLoader$/.test(c.childForFieldName('function')?.text ?? '')) return false;
    const n = Number(keyword(c, 'num_workers')?.childForFieldName('value')?.text);
    return n > 0 && !keyword(c, 'multiprocessing_context');
  });
}

/** HR011 cuda-in-dataloader-worker: CUDA work in a Dataset runs in every worker process. */
export function hr011(ctx: RuleContext): Finding[] {
  const out: Finding[] = [];
  const forked = forkedWorkers(ctx);
  for (const cls of ctx.root.descendantsOfType('class_definition')) {
    const bases = cls?.childForFieldName('superclasses')?.namedChildren ?? [];
    if (!cls || !bases.some((b) => b && DATASET.test(ctx.qualify(b) ?? b.text))) continue;
    for (const fn of cls.childForFieldName('body')?.namedChildren ?? []) {
      const def = fn?.type === 'decorated_definition' ? fn.childForFieldName('definition') : fn;
      if (def?.type !== 'function_definition' || !['__getitem__', '__iter__', '__next__'].includes(def.childForFieldName('name')?.text ?? '')) continue;
      for (const c of def.descendantsOfType('call')) {
        if (!c || !cudaPlacement(c)) continue;
        out.push(
          findingAt('HR011', forked ? 'error' : 'warning', c, `CUDA in ${def.childForFieldName('name')!.text}: DataLoader workers run this in separate processes, each creating its own CUDA context (hundreds of MiB of device memory per worker)${forked ? ', and CUDA cannot be re-initialized in a forked worker' : ''}. Return CPU tensors and move the batch in the training loop (pin_memory=True, .to(device, non_blocking=True)).`),
        );
      }
    }
  }
  return out;
}

import type { SyntaxNode } from '../syntax/syntaxNode';
import { memo } from '../syntax/nodeIndex';
import { unitsEvidence } from './moduleEvidence';
import type { Binding, ClassInfo, UnitEvidence } from './moduleEvidence';
import { qualifyDotted } from './imports';

// Which names hold a torch.nn.Module, from what the file shows (what built it, what is done with it), not from the name.

/** A class of the file is a module when a base is one (by name or by class of this file) or it defines forward(). */
const MODULE_BASE = /(^|\.)(Module|\w*Model|\w*Net|LightningModule|Sequential|ModuleList|ModuleDict)$/;
/** Library calls that build a model: torch.nn classes, torchvision and timm models, from_pretrained, hub and jit loads, wrappers. */
const BUILDS_MODULE = [
  /^torch\.nn\.(?!Parameter)(\w+\.)*[A-Z]\w*$/,
  /^torchvision\.models\.(\w+\.)*[a-z]\w*$/,
  /^timm\.(create_model|models\.\w+)$/,
  /^(transformers|diffusers|peft|sentence_transformers|open_clip|segmentation_models_pytorch)\.\w*(Model|For[A-Z]\w*|Net|Transformer|Encoder|Decoder)\w*\.(from_pretrained|from_config)$/,
  /^torch\.(hub\.load|jit\.load)$/,
];
/** torch.nn classes without parameters (activations, losses, dropout, pooling, distances): calling one is a function of its inputs. */
const PARAMETER_FREE =
  /(Loss|Softmax\w*|Softmin|ReLU\d*|ELU|GELU|SiLU|Mish|Tanh\w*|Sigmoid|Hardtanh|Hardswish|Hardsigmoid|Softplus|Softsign|Softshrink|Hardshrink|Tanhshrink|Threshold|GLU|LogSigmoid|Dropout\w*|CosineSimilarity|PairwiseDistance|\w*Pool\w*|Upsample\w*|Flatten|Unflatten|Identity|Unfold|Fold|PixelShuffle|PixelUnshuffle|ChannelShuffle|\w*Pad\dd)$/;
/** Calls that give back the module they are given (or called on). */
const SAME_MODULE_FN =
  /^(copy\.deepcopy|torch\.compile|torch\.nn\.parallel\.\w+|torch\.nn\.DataParallel|torch\.distributed\.fsdp\.\w+|torch\.jit\.script)$/;
const SAME_MODULE_METHOD = /^(to|cuda|cpu|half|float|double|bfloat16|eval|train|requires_grad_|to_empty)$/;
/** Methods only a module has (an optimizer has state_dict too, a Trainer train(): left out). */

export interface ModuleFacts {
  /** `model`, `Net:self.encoder`: names that hold a module (a `self.` name keyed by its class; other names one set per file). */
  names: ReadonlySet<string>;
  /** `crit`, `Net:self.dropout`: modules without parameters (nn.CrossEntropyLoss(), nn.Dropout()): what they return carries what they are given. */
  functions: ReadonlySet<string>;
  /** Names bound to an instance of a class of this file, to the class (`enc = Encoder()`): calling one runs its forward()/__call__. */
  instances: ReadonlyMap<string, string>;
  /** The file's module classes, by name. */
  classes: readonly string[];
  /** All of it as text: a change re-lints the whole file (session.ts). */
  key: string;
}

/** The file's module classes: a base that reads as a module or is one of them, or a forward() of its own. */
function moduleClasses(infos: readonly ClassInfo[]): Set<string> {
  const names = new Set<string>();
  for (let changed = true; changed; ) {
    changed = false;
    for (const c of infos) {
      if (names.has(c.name)) continue;
      if (c.forward || c.bases.some((b) => (MODULE_BASE.test(b) && !/^(pydantic\.)?BaseModel$/.test(b)) || names.has(b))) {
        names.add(c.name);
        changed = true;
      }
    }
  }
  return names;
}

/** Names that hold a module, from what the file shows: built by a module class or a model library, wrapped or moved, or used as a module. */
export function moduleFacts(file: SyntaxNode, bindings: ReadonlyMap<string, string>): ModuleFacts {
  return memo(file, 'modules', () => {
    // The same text and imports as the last time asked (a session's key, then its lint, then what an edit changes for other functions).
    // (Two kept: an edit compares the text before it with the text after.)
    const text = file.text;
    const hit = kept.find((k) => k.text === text && k.bindings === bindings);
    if (hit) return hit.facts;
    // The same statements' evidence as last time (what most edits leave): the same facts.
    const units = unitsEvidence(file);
    const same =
      combined &&
      combined.bindings === bindings &&
      combined.units.length === units.length &&
      combined.units.every((u, i) => u === units[i]);
    const facts = same ? combined!.facts : computeFacts(units, bindings);
    combined = { units, bindings, facts };
    kept.unshift({ text, bindings, facts });
    kept.length = Math.min(kept.length, 2);
    return facts;
  });
}

const kept: { text: string; bindings: ReadonlyMap<string, string>; facts: ModuleFacts }[] = [];

/**
 * After an edit inside one top-level statement whose evidence is what it was (unitEvidence gives the
 * same object), the facts of the new text are those of the old: kept for it without reading every statement.
 */
export function sameModuleFacts(text: string, bindings: ReadonlyMap<string, string>, facts: ModuleFacts): void {
  kept.unshift({ text, bindings, facts });
  kept.length = Math.min(kept.length, 2);
}
let combined: { units: readonly UnitEvidence[]; bindings: ReadonlyMap<string, string>; facts: ModuleFacts } | undefined;

function computeFacts(units: readonly UnitEvidence[], bindings: ReadonlyMap<string, string>): ModuleFacts {
  const infos = units.flatMap((u) => u.classes);
  const classes = moduleClasses(infos);
  const free = new Set(infos.filter((c) => c.free && classes.has(c.name)).map((c) => c.name));
  // Classes whose instances are called: a module class (its forward may be inherited) or a __call__ of its own.
  const callable = new Set(infos.filter((c) => classes.has(c.name) || c.call).map((c) => c.name));
  const instances = new Map<string, string>();
  const names = new Set<string>();
  const functions = new Set<string>();
  const builds = (b: Binding) => {
    const last = b.callee.slice(b.callee.lastIndexOf('.') + 1);
    if (classes.has(last) || classes.has(b.callee)) return true;
    const q = qualifyDotted(bindings, b.callee);
    // A pipeline runs under no_grad itself (diffusers, transformers): calling it builds no graph.
    if (!q || /Pipeline/.test(q) || !BUILDS_MODULE.some((p) => p.test(q))) return false;
    // A container of modules is a model when it holds one with parameters (not nn.Sequential(STFT(), Spectrogram())).
    return (
      !/^torch\.nn\.(Sequential|ModuleList|ModuleDict)$/.test(q) ||
      b.built.some((n) => (n.startsWith('nn.') ? !PARAMETER_FREE.test(n.slice(3)) : classes.has(n)))
    );
  };
  // By callee: a file builds the same few classes many times.
  const seen = new Map<string, boolean>();
  const parameterFree = (callee: string) => {
    let v = seen.get(callee);
    if (v === undefined)
      seen.set(
        callee,
        (v =
          PARAMETER_FREE.test(callee.slice(callee.lastIndexOf('.') + 1)) &&
          /^(torch\.nn|[\w.]*Loss$)/.test(qualifyDotted(bindings, callee) ?? callee)),
      );
    return v;
  };
  for (const u of units) {
    for (const n of u.used) names.add(n);
    for (const [n, t] of u.annotated) if (classes.has(t) || /^(torch\.)?nn\.Module$/.test(t)) names.add(n);
  }
  // Twice: `model = Net()` then `model = DDP(model)` / `ema = copy.deepcopy(model)` further up or down.
  const bound = units.flatMap((u) => u.bindings);
  for (let pass = 0; pass < 2; pass++) {
    for (const b of bound) {
      const dot = b.callee.lastIndexOf('.');
      const made = b.callee.slice(dot + 1);
      const moved = !!b.object && SAME_MODULE_METHOD.test(made) && names.has(b.object);
      const wrapped = !!b.arg && names.has(b.arg) && SAME_MODULE_FN.test(qualifyDotted(bindings, b.callee) ?? '');
      // An instance of a class of this file: calling it runs that class's forward() or __call__ (callers.ts).
      if (pass === 0 && callable.has(made)) instances.set(b.target, made);
      if (!functions.has(b.target) && !names.has(b.target) && (parameterFree(b.callee) || free.has(made))) functions.add(b.target);
      else if (!names.has(b.target) && !functions.has(b.target) && (builds(b) || moved || wrapped)) names.add(b.target);
    }
  }
  names.delete('self');
  // A pipeline moves itself (`pipeline.to(device)`) and runs its models under no_grad: not a module to run with grad on.
  for (const b of bound) if (/Pipeline/.test(b.callee) || /Pipeline/.test(qualifyDotted(bindings, b.callee) ?? '')) names.delete(b.target);
  for (const n of names) if (/(^|[.:_])pipe(line)?$/i.test(n)) names.delete(n);
  for (const f of functions) names.delete(f);
  const made = [...instances].map(([k, v]) => `${k}=${v}`).sort();
  return {
    names,
    functions,
    instances,
    classes: [...classes],
    key: `modules:${[...names].sort().join(',')}|${[...functions].sort().join(',')}|${made.join(',')}`,
  };
}

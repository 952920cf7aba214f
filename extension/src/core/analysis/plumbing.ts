/**
 * Framework plumbing: frames that pass a call on to the model (nn.Module's call machinery, autocast
 * and checkpoint wrappers, accelerate's hooks, Trainer and Lightning loops, torch.compile's frame
 * evaluation, the optimizer's step wrappers, the standard library). They say nothing about which
 * part of the model holds memory, so the call tree folds them into the edge that passes through
 * them and names the group it folded. Model code (transformers' modeling files, timm, torchvision,
 * torch.nn's own layers and functional ops, the optimizers' update code) is kept.
 */

interface Rule {
  group: string;
  file: RegExp;
  /** When given, only these functions of the file are plumbing. */
  names?: RegExp;
}

const PKG = String.raw`(?:^|/)`;

const RULES: readonly Rule[] = [
  // Module.to/_apply/cuda move parameters: kept. The call machinery is not.
  {
    group: 'nn.Module call',
    file: new RegExp(PKG + String.raw`torch/nn/modules/module\.py$`),
    names: /^(?:_call_impl|_wrapped_call_impl|inner|__call__|_slow_forward)$/,
  },
  {
    group: 'torch.compile',
    file: new RegExp(PKG + String.raw`torch/(?:_dynamo|_functorch|_inductor|_higher_order_ops|_compile\.py|_ops\.py|fx/)`),
  },
  { group: 'generated code', file: /\/torchinductor_[^/]*\/|\/torch_compile_debug\/|^</ },
  { group: 'autocast', file: new RegExp(PKG + String.raw`torch/(?:amp/autocast_mode|cuda/amp/autocast_mode|cpu/amp/autocast_mode)\.py$`) },
  { group: 'checkpoint', file: new RegExp(PKG + String.raw`torch/utils/checkpoint\.py$`) },
  {
    group: 'autograd',
    file: new RegExp(
      PKG + String.raw`torch/(?:autograd/|_tensor\.py$|overrides\.py$|_jit_internal\.py$|utils/_contextlib\.py$|utils/hooks\.py$)`,
    ),
  },
  {
    group: 'DDP/FSDP wrapper',
    file: new RegExp(PKG + String.raw`torch/(?:nn/parallel/|distributed/fsdp/|distributed/_composable/|distributed/algorithms/)`),
  },
  { group: 'optimizer step', file: new RegExp(PKG + String.raw`torch/optim/(?:optimizer|lr_scheduler)\.py$`) },
  { group: 'accelerate', file: new RegExp(PKG + String.raw`accelerate/`) },
  { group: 'Trainer loop', file: new RegExp(PKG + String.raw`transformers/trainer[^/]*\.py$`) },
  { group: 'transformers wrappers', file: new RegExp(PKG + String.raw`transformers/(?:utils/|modeling_layers\.py$)`) },
  { group: 'Trainer loop', file: new RegExp(PKG + String.raw`(?:trl|peft)/(?:trainer/|utils/)`) },
  { group: 'Lightning loop', file: new RegExp(PKG + String.raw`(?:lightning/(?:pytorch|fabric)|pytorch_lightning|lightning_fabric)/`) },
  { group: 'timm wrapper', file: new RegExp(PKG + String.raw`timm/models/_manipulate\.py$`) },
  {
    group: 'Python runtime',
    file: /(?:^|\/)lib(?:64)?\/python\d[.\d]*\/(?!site-packages\/|dist-packages\/)[^/]+\.py$|(?:^|\/)Lib\/[^/]+\.py$/,
  },
];

/** The plumbing group of a frame (its file and function), or undefined for code that is kept. */
export function plumbingGroup(file: string, name: string): string | undefined {
  const path = file.includes('\\') ? file.replace(/\\/g, '/') : file;
  for (const r of RULES) if (r.file.test(path) && (!r.names || r.names.test(name))) return r.group;
  return undefined;
}

/**
 * A library path as a reader wants it: from the package down (`transformers/models/gpt2/modeling_gpt2.py`),
 * the prefix up to site-packages or dist-packages dropped; other paths whole.
 */
export function shortPath(file: string): string {
  const m = /[\\/](?:site|dist)-packages[\\/]/.exec(file);
  return m ? file.slice(m.index + m[0].length) : file;
}

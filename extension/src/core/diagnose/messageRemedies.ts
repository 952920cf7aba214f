import { formatBytes } from '../../shared/format';
import type { MessageFacts } from './messageFacts';
import type { Remedy } from './remedies';

// The remedies a message alone supports. Each is offered only where the figures (or the traceback
// around the message) say it can help: no checkpointing for inference, no "stop" for this process.

export const record: Remedy = {
  id: 'record',
  title: 'Record the OOM',
  change: 'rerun under `headroom run -- python …`: the allocator is recorded and a snapshot is taken at the OOM',
  effect: 'the doctor then names the lines and tensors that held the memory, and checks the verdict',
};

export function releaseNonPyTorch(extra: number): Remedy {
  return {
    id: 'release-non-pytorch',
    title: 'Release memory held outside PyTorch in this process',
    change:
      'free other frameworks’ GPU memory (TensorFlow, JAX, CuPy pools, ONNX Runtime, TensorRT engines) or a second model copy before training',
    effect: `up to ${formatBytes(extra)} that this process holds beside PyTorch’s reserve`,
  };
}

export function freeOthers(f: MessageFacts): Remedy {
  const pids = f.others.map((p) => `pid ${p.pid} (${formatBytes(p.used)})`);
  const bytes = f.othersBytes || Math.max(0, (f.outside ?? 0) - 2 ** 30);
  return {
    id: 'free-device',
    title: 'Free the GPU from other programs',
    change: pids.length
      ? `stop or move the other processes on this GPU: ${pids.join(', ')}`
      : 'stop the other programs on this GPU (nvidia-smi lists them), or pick a free GPU with CUDA_VISIBLE_DEVICES',
    effect: `up to ${formatBytes(bytes)} for this job`,
  };
}

export function raiseCapFrom(f: MessageFacts): Remedy {
  const room = (f.free ?? 0) + (f.cap ?? 0);
  return {
    id: 'memory-cap',
    title: 'Raise or remove the memory cap',
    change: `the per-process limit of ${formatBytes(f.cap ?? 0)} (torch.cuda.set_per_process_memory_fraction, or a launcher's memory fraction) set higher, or not at all`,
    effect: `the device had ${formatBytes(f.free ?? 0)} free: up to ${formatBytes(Math.min(room, f.total ?? room))} becomes usable`,
  };
}

/** cudaMallocAsync's pool keeps what it freed; the native allocator with expandable segments returns it. */
export const nativeExpandable: Remedy = {
  id: 'expandable-segments',
  title: 'Back to the native allocator, with expandable segments',
  change: 'PYTORCH_CUDA_ALLOC_CONF=backend:native,expandable_segments:True instead of backend:cudaMallocAsync',
  effect: 'freed memory is reused in place instead of staying in the asynchronous pool',
  allocConf: { backend: 'native', expandable_segments: 'True' },
};

// Whether this machine can run the GPU tests: CI has no GPU and skips them, saying so.
import { execFileSync } from 'node:child_process';

export function cudaAvailable(): boolean {
  try {
    execFileSync('python3', ['-c', 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export const NO_GPU = 'no CUDA GPU with PyTorch on this machine: the GPU tests run on the GPU host (CI skips them)';

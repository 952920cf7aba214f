import { execFile } from 'node:child_process';
import * as vscode from 'vscode';
import type { Config } from './config';

export interface Interpreter {
  path: string;
  /** Where it came from, for messages: "the Python extension", "headroom.pythonPath", "PATH". */
  source: string;
}

/**
 * The interpreter to run with: the Python extension's active environment for the file, then the
 * `headroom.pythonPath` setting, then python3 on PATH.
 */
export async function resolveInterpreter(
  resource: vscode.Uri | undefined,
  config: Config,
  log: vscode.LogOutputChannel,
): Promise<Interpreter> {
  if (vscode.extensions.getExtension('ms-python.python')) {
    try {
      const { PythonExtension } = await import('@vscode/python-extension');
      const api = await PythonExtension.api();
      const env = await api.environments.resolveEnvironment(api.environments.getActiveEnvironmentPath(resource));
      const path = env?.executable.uri?.fsPath;
      if (path) return { path, source: 'the Python extension' };
    } catch (e) {
      log.warn(`the Python extension did not give an interpreter: ${(e as Error).message}`);
    }
  }
  if (config.pythonPath) return { path: config.pythonPath, source: 'headroom.pythonPath' };
  return { path: 'python3', source: 'PATH' };
}

export interface Probe {
  python?: string;
  torch?: string;
  cuda?: boolean;
  backend?: string;
  error?: string;
}

const PROBE = `import json, sys
r = {"python": sys.version.split()[0]}
try:
    import torch
    r["torch"] = torch.__version__
    r["cuda"] = torch.cuda.is_available()
except Exception as e:
    r["error"] = "%s: %s" % (type(e).__name__, e)
print(json.dumps(r))`;

/** Asks the interpreter what it has; undefined when it cannot be started at all. */
export function probe(interp: Interpreter, cwd: string | undefined): Promise<Probe | undefined> {
  return new Promise((resolve) => {
    execFile(interp.path, ['-c', PROBE], { cwd, timeout: 60_000 }, (err, stdout) => {
      if (err && !stdout) return resolve(undefined);
      try {
        resolve(JSON.parse(stdout.trim().split('\n').pop()!) as Probe);
      } catch {
        resolve(undefined);
      }
    });
  });
}

/**
 * Says what is missing, with the fix. Returns false when the run cannot start (no interpreter);
 * a missing torch or CUDA only warns: the workload's own output will say the rest.
 */
export async function checkInterpreter(interp: Interpreter, p: Probe | undefined): Promise<boolean> {
  if (!p) {
    const pick = await vscode.window.showErrorMessage(
      vscode.l10n.t(
        'Headroom cannot start the Python interpreter "{0}" (from {1}). Select an interpreter with the Python extension, or set headroom.pythonPath.',
        interp.path,
        interp.source,
      ),
      vscode.l10n.t('Open Settings'),
    );
    if (pick) void vscode.commands.executeCommand('workbench.action.openSettings', 'headroom.pythonPath');
    return false;
  }
  if (!p.torch) {
    void vscode.window.showWarningMessage(
      vscode.l10n.t(
        'PyTorch is not importable in {0} ({1}): install it there with "{0} -m pip install torch", or select another interpreter. Running anyway.',
        interp.path,
        p.error ?? vscode.l10n.t('no torch'),
      ),
    );
  } else if (!p.cuda) {
    void vscode.window.showWarningMessage(
      vscode.l10n.t(
        'torch {0} in {1} sees no CUDA GPU (torch.cuda.is_available() is False): Headroom records CUDA memory only, so this run will have live output but no memory figures.',
        p.torch,
        interp.path,
      ),
    );
  }
  return true;
}

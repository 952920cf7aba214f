import * as vscode from 'vscode';
import { messageText } from '../core/text';
import { explainOomText } from '../core/diagnose/explainText';
import type { OomExplanations } from './explainOom';

/** A terminal line with a CUDA OOM message: the link explains the whole line. */
interface OomLink extends vscode.TerminalLink {
  line: string;
}

/**
 * CUDA OOM messages in any terminal (a Headroom run's task, a shell, torchrun's output) become links
 * to the doctor's explanation. VS Code hands providers each line with its wraps joined, so the
 * one-line message PyTorch prints is read whole.
 */
export class OomTerminalLinks implements vscode.TerminalLinkProvider<OomLink> {
  constructor(private readonly explanations: OomExplanations) {}

  provideTerminalLinks(context: vscode.TerminalLinkContext): OomLink[] {
    // Cheap test first: this runs for every line a terminal shows.
    const at = context.line.search(/out of memory/i);
    if (at < 0) return [];
    const { found } = explainOomText(context.line);
    if (!found.length) return [];
    const d = found[0]!.diagnosis;
    const start = Math.max(0, context.line.lastIndexOf('CUDA', at));
    return [
      {
        startIndex: start,
        length: at + 'out of memory'.length - start,
        tooltip: vscode.l10n.t('Headroom: explain this OOM ({0})', d.kind),
        line: context.line,
      },
    ];
  }

  handleTerminalLink(link: OomLink): Promise<void> {
    return this.explanations.show(link.line);
  }
}

/** VS Code 1.93+ streams each shell command's output; the engine we support (1.90) does not. */
interface ShellExecutionApi {
  onDidStartTerminalShellExecution?: vscode.Event<{ execution: { read(): AsyncIterable<string> } }>;
}

// Colours, cursor moves and OSC sequences (shell integration's own marks among them).
// eslint-disable-next-line no-control-regex
const ESCAPES = /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]|\r/g;
/** What is kept of one command's output: an OOM message is the last thing a dying process prints. */
const TAIL = 256 * 1024;

/**
 * With shell integration, a command whose output ends with a CUDA OOM message raises a
 * notification that offers the explanation. Undefined where the API is missing (older VS Code).
 */
export function watchShellOutput(
  explanations: OomExplanations,
  window: ShellExecutionApi = vscode.window as ShellExecutionApi,
): vscode.Disposable | undefined {
  if (typeof window.onDidStartTerminalShellExecution !== 'function') return undefined;
  return window.onDidStartTerminalShellExecution(async ({ execution }) => {
    // Chunks kept whole, the oldest dropped past TAIL: a chatty training log costs no copying.
    const chunks: string[] = [];
    let kept = 0;
    try {
      for await (const data of execution.read()) {
        chunks.push(data);
        kept += data.length;
        while (kept - chunks[0]!.length >= TAIL) kept -= chunks.shift()!.length;
      }
    } catch {
      // A terminal killed mid-read: what came is still read below.
    }
    const text = chunks.join('').slice(-TAIL).replace(ESCAPES, '');
    const { found } = explainOomText(text);
    if (!found.length) return;
    const d = found.at(-1)!.diagnosis;
    const explain = vscode.l10n.t('Explain');
    const pick = await vscode.window.showWarningMessage(
      messageText(vscode.l10n.t('CUDA out of memory in the terminal: {0} — {1}', d.kind, d.why)),
      explain,
    );
    if (pick === explain) await explanations.show(text);
  });
}

import * as vscode from 'vscode';
import { plain } from '../../shared/text';
import { linesRanByFile } from '../../core/diagnose/evidence';
import type { RunEvidence } from '../../core/diagnose/evidence';
import { detectLeaks, projection } from '../../core/diagnose/leaks';
import type { LeakReport } from '../../core/diagnose/leaks';
import { diagnoseWithin } from '../../core/diagnose/explainSnapshot';
import { keepsPerIteration } from '../../core/diagnose/leakText';
import type { WorkspaceMapping } from './mapping';
import type { MemoryView } from './view';

/** A moment of the shown run that a diagnostic is about (the timeline can show it). */
export interface RunMoment {
  index: number;
  what: 'leak' | 'oom';
}

interface Evidence {
  run: string;
  leak: LeakReport;
  /** Snapshot path → workspace file. */
  local: Map<string, string | undefined>;
  ran: Map<string, Set<number>>;
}

/**
 * What the shown snapshot proves on the code: each OOM on the line that asked for the memory, each
 * leaking line with its growth per iteration; and the same evidence for the lint (confirmed or
 * costs-nothing findings). Recomputed when the memory view shows another snapshot.
 */
export class RunDiagnostics implements vscode.Disposable {
  private readonly collection = vscode.languages.createDiagnosticCollection('headroom-run');
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private evidence: Evidence | undefined;
  /** File → line (1-based) → the moment its diagnostic names. */
  private moments = new Map<string, Map<number, RunMoment>>();
  /** What the diagnostics were made for: the view also changes for instants and edits. */
  private shown: { snapshot: unknown; device: number } | undefined;
  private readonly sub: vscode.Disposable;

  constructor(
    private readonly view: MemoryView,
    private readonly mapping: WorkspaceMapping,
  ) {
    this.sub = view.onDidSettle(() => void this.update());
  }

  /** The moments named by this run's diagnostics on a file's lines [from, to] (1-based). */
  momentsAt(fsPath: string, from: number, to: number): RunMoment[] {
    const byLine = this.moments.get(fsPath);
    return byLine ? [...byLine].filter(([l]) => l >= from && l <= to).map(([, m]) => m) : [];
  }

  /** The shown run's evidence, for one workspace file's lint findings. */
  runEvidenceFor(fsPath: string): RunEvidence[] {
    const ev = this.evidence;
    if (!ev) return [];
    const ran = new Set<number>();
    for (const [file, lines] of ev.ran) if (ev.local.get(file) === fsPath) for (const l of lines) ran.add(l);
    return [{ run: ev.run, leak: ev.leak, sameFile: (p) => ev.local.get(p) === fsPath, ran }];
  }

  private async update(): Promise<void> {
    const c = this.view.current;
    if (c?.snapshot === this.shown?.snapshot && c?.device === this.shown?.device) return;
    this.shown = c ? { snapshot: c.snapshot, device: c.device } : undefined;
    this.collection.clear();
    this.evidence = undefined;
    this.moments = new Map();
    if (!c) return this.changed.fire();
    const s = c.snapshot;
    const a = c.analysis;
    const leak = detectLeaks(s, a);
    const ran = linesRanByFile(s, a);
    const { diagnosed, note } = diagnoseWithin(s, a, c.path);
    if (note) this.mapping.log.info(`${plain(c.label)}: ${note}`);
    const ooms = diagnosed.map((x) => ({ ...x, frame: a.classifier.firstUser(s.stacks.get(x.o.stack)) }));
    const paths = new Set([
      ...ran.keys(),
      ...leak.lines.map((l) => l.file),
      ...ooms.flatMap((x) => (x.frame < 0 ? [] : [s.frames.fileOf(x.frame)])),
    ]);
    const local = await this.mapping.resolve([...paths], false);
    if (this.view.current !== c) return; // another snapshot came meanwhile
    this.evidence = { run: c.label, leak, local, ran };
    const byFile = new Map<string, vscode.Diagnostic[]>();
    const add = (file: string | undefined, line: number, d: vscode.Diagnostic, moment?: RunMoment) => {
      if (!file) return;
      if (moment) this.moments.set(file, (this.moments.get(file) ?? new Map<number, RunMoment>()).set(line, moment));
      d.range = new vscode.Range(line - 1, 0, line - 1, Number.MAX_SAFE_INTEGER);
      d.source = 'headroom';
      byFile.set(file, [...(byFile.get(file) ?? []), d]);
    };
    for (const { o, d, frame } of ooms) {
      if (frame < 0) continue;
      const remedies = d.remedies.map((r) => r.title).join('; ');
      add(
        local.get(s.frames.fileOf(frame)),
        s.frames.lineOf(frame),
        new vscode.Diagnostic(
          new vscode.Range(0, 0, 0, 0),
          plain(vscode.l10n.t('CUDA out of memory here ({0}, event #{1}): {2} Remedies: {3}.', d.kind, o.index, d.why, remedies)),
          vscode.DiagnosticSeverity.Error,
        ),
        { index: o.index, what: 'oom' },
      );
    }
    if (leak.leaking)
      for (const l of leak.lines)
        add(
          local.get(l.file),
          l.line,
          new vscode.Diagnostic(
            new vscode.Range(0, 0, 0, 0),
            vscode.l10n.t(
              'Keeps {0}, created here and never freed ({1}); measured over {2} iterations of {3} (the last at event #{4}; the quick fix shows it on the timeline).',
              keepsPerIteration(l),
              projection({ ...leak, bytesPerIteration: l.bytesPerIteration }),
              leak.boundaries.length,
              plain(c.label),
              leak.moment?.index ?? '?',
            ),
            // Small and steady: a hint; one that would fill the device within a million steps: a warning.
            leak.severity === 'warning' ? vscode.DiagnosticSeverity.Warning : vscode.DiagnosticSeverity.Information,
          ),
          leak.moment ? { index: leak.moment.index, what: 'leak' } : undefined,
        );
    for (const [file, ds] of byFile) this.collection.set(vscode.Uri.file(file), ds);
    this.changed.fire();
  }

  dispose(): void {
    this.sub.dispose();
    this.changed.dispose();
    this.collection.dispose();
  }
}

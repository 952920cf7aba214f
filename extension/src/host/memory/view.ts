import { readFileSync } from 'node:fs';
import * as vscode from 'vscode';
import type { At, DeviceAnalysis } from '../../core/analysis/deviceAnalysis';
import { analyzeDevice, defaultDevice, resolveAt } from '../../core/analysis/analyze';
import { attributeAt } from '../../core/analysis/attributeAt';
import type { Attribution, LineStat } from '../../core/analysis/attribution';
import type { CallWindow } from '../../core/analysis/backward';
import type { CallTree } from '../../core/analysis/callNode';
import type { Instant } from '../../core/analysis/replay';
import { TreeCache } from '../../core/analysis/treeCache';
import { paramsBeside } from '../../core/run/paramsFile';
import type { ParamRecords } from '../../core/run/paramsFile';
import { annotate, DEFAULT_ANNOTATE, heatOf } from '../../core/source/annotations';
import type { LineAnnotation } from '../../core/source/annotations';
import { diffAttributions } from '../../core/source/diff';
import { contentHash, shiftLine } from '../../core/source/lineShift';
import { mappedPaths } from '../../core/source/pathMap';
import type { Snapshot } from '../../core/snapshot/model';
import { Config } from '../config';
import { libraryLinesFor } from './libraryAnnotations';
import { AfterWindow } from './afterWindow';
import type { WorkspaceMapping } from './mapping';

/** Where the figures come from: a snapshot, and what the run recorded beside it. */
export interface SourceInput {
  snapshot: Snapshot;
  path: string;
  label: string;
  /** backward() windows from the run folder. */
  calls?: readonly CallWindow[];
  /** Source hashes recorded at run time, by the path in the frames. */
  sources?: Record<string, string>;
}

export interface ViewLine extends LineAnnotation {
  /** The frame's own path (on the machine that ran the job). */
  remoteFile: string;
  /** The line now (1-based), after edits since the figures were taken; undefined if it was deleted. */
  currentLine: number | undefined;
  stale: boolean;
}

interface Current extends SourceInput {
  device: number;
  analysis: DeviceAnalysis;
  at: At;
  instant: Instant;
  instantLabel: string;
  attribution: Attribution;
  baseline?: { label: string; attribution: Attribution };
}

/**
 * The memory shown in the editors: one snapshot at one instant, its lines mapped to workspace
 * files, kept attached to their text while files are edited. Decorations, hovers, code lenses and
 * the tree all read it.
 */
export class MemoryView implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private readonly after = new AfterWindow(this.onDidChange);
  /** onDidChange once the window has the decorations it set: for listeners with heavy work. */
  readonly onDidSettle = this.after.event;
  enabled = true;
  current: Current | undefined;
  private lines = new Map<string, ViewLine[]>();
  /** Lines of library files the workspace has (libraryAnnotations.ts), shown beside the user's. */
  private libraryLines: LineStat[] = [];
  unmapped: { file: string; selfBytes: number; lines: number }[] = [];
  /** How long the last show() spent in the engine (analysis) and in the editor's own work. */
  timings = { analysisMs: 0, annotateMs: 0 };
  /** Per local file: the hash the annotations were made for. */
  private expected = new Map<string, string>();
  private readonly subs: vscode.Disposable[];
  // Class names are read from the frames' sources, here or through headroom.pathMappings.
  private readonly trees = new TreeCache((f) => mappedPaths(f, this.mapping.prefixes()));
  private params: { path: string; records: ParamRecords | undefined } | undefined;

  /** Public so that every "open this line" (summary, timeline) maps frames the same way. */
  constructor(readonly mapping: WorkspaceMapping) {
    this.subs = [
      this.after,
      this.changed,
      vscode.workspace.onDidChangeTextDocument((e) => this.edited(e)),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (this.current && (e.affectsConfiguration('headroom.annotations') || e.affectsConfiguration('headroom.pathMappings')))
          void this.recompute(false);
      }),
    ];
  }

  async show(input: SourceInput, device?: number): Promise<void> {
    const d = device ?? defaultDevice(input.snapshot);
    if (d === undefined) throw new Error(vscode.l10n.t('this snapshot has no device with a trace or segments'));
    const t0 = performance.now();
    const analysis = analyzeDevice(input.snapshot, d, undefined, input.calls);
    this.current = {
      ...input,
      device: d,
      analysis,
      at: 'peak',
      instant: analysis.replay.peak,
      instantLabel: vscode.l10n.t('at peak'),
      attribution: attributeAt(input.snapshot, analysis, analysis.replay.peak, true),
    };
    const t1 = performance.now();
    this.enabled = true; // opening a snapshot shows it, even if annotations were toggled off
    await this.recompute(true);
    this.timings = { analysisMs: t1 - t0, annotateMs: performance.now() - t1 };
  }

  async setInstant(at: At): Promise<void> {
    const c = this.current;
    if (!c) return;
    c.at = at;
    c.instant = resolveAt(c.analysis, at);
    c.instantLabel =
      at === 'peak' ? vscode.l10n.t('at peak') : at === 'end' ? vscode.l10n.t('at end') : vscode.l10n.t('at event #{0}', c.instant.index);
    c.attribution = attributeAt(c.snapshot, c.analysis, c.instant, true);
    await this.recompute(false);
  }

  async setDevice(d: number): Promise<void> {
    if (!this.current) return;
    const { snapshot, path, label, calls, sources } = this.current;
    await this.show({ snapshot, path, label, ...(calls ? { calls } : {}), ...(sources ? { sources } : {}) }, d);
  }

  /** Compare mode: decorations show the change of each line against `baseline` (at its peak). */
  async setBaseline(label: string | undefined, baseline: Attribution | undefined): Promise<void> {
    if (!this.current) return;
    if (baseline && label) this.current.baseline = { label, attribution: baseline };
    else delete this.current.baseline;
    await this.recompute(false);
  }

  toggle(): void {
    this.enabled = !this.enabled;
    this.changed.fire();
  }

  private async recompute(interactive: boolean): Promise<void> {
    const c = this.current!;
    const config = new Config();
    this.libraryLines = config.libraryAnnotations && !c.baseline ? await libraryLinesFor(c, this.mapping) : [];
    const shown = this.libraryLines.length ? { ...c.attribution, lines: [...c.attribution.lines, ...this.libraryLines] } : c.attribution;
    const files = [...new Set([...shown.lines.map((l) => l.file), ...(c.baseline?.attribution.lines.map((l) => l.file) ?? [])])];
    const local = await this.mapping.resolve(files, interactive);
    const map = (f: string) => local.get(f);
    const opts = config.annotate(DEFAULT_ANNOTATE);
    const out = annotate(shown, map, opts);
    const byFile = new Map<string, ViewLine[]>();
    const remoteOf = new Map<string, string>();
    for (const [remote, l] of local) if (l) remoteOf.set(l, remote);
    if (c.baseline) {
      // Lines whose self bytes changed, as signed figures against the baseline.
      for (const d of diffAttributions(c.baseline.attribution, c.attribution).lines) {
        const file = map(d.file);
        if (!file) continue;
        const share = c.attribution.totalBytes > 0 ? Math.abs(d.deltaBytes) / c.attribution.totalBytes : 0;
        const list = byFile.get(file) ?? [];
        list.push({
          file,
          remoteFile: d.file,
          line: d.line,
          currentLine: d.line,
          function: d.function,
          selfBytes: d.afterBytes,
          inclusiveBytes: d.afterBytes,
          blocks: 0,
          largest: [],
          share,
          heat: heatOf(share),
          figure: { kind: 'change', deltaBytes: d.deltaBytes, baseline: c.baseline.label },
          lens: false,
          stale: false,
          kinds: [],
        });
        byFile.set(file, list);
      }
    } else {
      for (const [file, anns] of out.byFile)
        byFile.set(
          file,
          anns.map((a) => ({ ...a, remoteFile: remoteOf.get(file) ?? file, currentLine: a.line, stale: false })),
        );
    }
    this.expected.clear();
    for (const file of byFile.keys()) {
      const remote = remoteOf.get(file) ?? file;
      const recorded = c.sources?.[remote];
      if (recorded) this.expected.set(file, recorded);
      else {
        const open = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === file);
        try {
          this.expected.set(file, contentHash(open ? open.getText() : readFileSync(file, 'utf8')));
        } catch {
          // unreadable: never stale
        }
      }
    }
    this.lines = byFile;
    this.unmapped = out.unmapped;
    this.changed.fire();
  }

  private edited(e: vscode.TextDocumentChangeEvent): void {
    const list = this.lines.get(e.document.uri.fsPath);
    if (!list || !e.contentChanges.length) return;
    for (const ch of e.contentChanges) {
      const edit = {
        startLine: ch.range.start.line,
        startChar: ch.range.start.character,
        endLine: ch.range.end.line,
        endChar: ch.range.end.character,
        insertedLineBreaks: (ch.text.match(/\n/g) ?? []).length,
      };
      for (const l of list) {
        if (l.currentLine === undefined) continue;
        const moved = shiftLine(l.currentLine - 1, edit);
        l.currentLine = moved === undefined ? undefined : moved + 1;
      }
    }
    this.changed.fire();
  }

  /** The annotations of a document, with their current lines and staleness. */
  linesFor(doc: vscode.TextDocument): ViewLine[] {
    if (!this.enabled) return [];
    const list = this.lines.get(doc.uri.fsPath);
    if (!list) return [];
    const want = this.expected.get(doc.uri.fsPath);
    const stale = want !== undefined && contentHash(doc.getText()) !== want;
    return list.filter((l) => l.currentLine !== undefined).map((l) => ({ ...l, stale }));
  }

  /** The call tree (user lines and the model code beneath them) at the instant shown; built once per instant. */
  treeNow(): CallTree | undefined {
    const c = this.current;
    return c ? this.trees.at(c.snapshot, c.analysis, c.instant.index, this.paramRecords(c.path)) : undefined;
  }

  /** The run folder's parameter records beside the snapshot, read once per snapshot; none when absent or unreadable. */
  private paramRecords(path: string): ParamRecords | undefined {
    if (this.params?.path !== path) {
      let records: ParamRecords | undefined;
      try {
        records = paramsBeside(path);
      } catch {
        records = undefined; // over its cap or unreadable: the tree stands without names
      }
      this.params = { path, records };
    }
    return this.params.records;
  }

  /** The attribution line behind an annotation (for the hover's details). */
  lineStat(v: ViewLine): LineStat | undefined {
    const at = (l: LineStat) => l.file === v.remoteFile && l.line === v.line;
    return this.current?.attribution.lines.find(at) ?? this.libraryLines.find(at);
  }

  dispose(): void {
    for (const s of this.subs.splice(0)) s.dispose();
  }
}

import * as vscode from 'vscode';
import type { RunSettings } from '../core/run/launch';
import type { AnnotateOptions } from '../core/source/annotations';

/** Typed reads of the `headroom.*` settings (package.json's contributes.configuration). */
export class Config {
  private get c(): vscode.WorkspaceConfiguration {
    return vscode.workspace.getConfiguration('headroom', this.scope);
  }

  constructor(private readonly scope?: vscode.ConfigurationScope) {}

  get pythonPath(): string {
    return this.c.get<string>('pythonPath', '').trim();
  }

  get args(): string[] {
    return this.c.get<string[]>('run.args', []);
  }

  get env(): Record<string, string> {
    return this.c.get<Record<string, string>>('run.env', {});
  }

  get runsFolder(): string {
    return this.c.get<string>('run.runsFolder', '.headroom/runs');
  }

  get annotateWhileRunning(): boolean {
    return this.c.get<boolean>('run.annotateWhileRunning', true);
  }

  /** Library files (site-packages model code) mapped into the workspace get decorations too. */
  get libraryAnnotations(): boolean {
    return this.c.get<boolean>('annotations.libraryFiles', true);
  }

  /** Which lines get decorations and code lenses (percentages in the settings, shares here). */
  annotate(base: AnnotateOptions): AnnotateOptions {
    const pct = (key: string, dflt: number) => Math.min(100, Math.max(0, this.c.get<number>(key, dflt * 100))) / 100;
    return {
      ...base,
      minShare: pct('annotations.minShare', base.minShare),
      lensTopN: Math.max(0, Math.floor(this.c.get<number>('annotations.codeLensTopN', base.lensTopN))),
      lensMinShare: pct('annotations.codeLensMinShare', base.lensMinShare),
    };
  }

  /** Recording and allocator settings, as the launcher takes them. */
  get run(): RunSettings {
    const c = this.c;
    const allocConf: Record<string, string> = {};
    const expandable = c.get<boolean | null>('allocator.expandableSegments', null);
    if (expandable !== null) allocConf.expandable_segments = expandable ? 'True' : 'False';
    const split = c.get<number>('allocator.maxSplitSizeMb', 0);
    if (split > 0) allocConf.max_split_size_mb = String(split);
    const gc = c.get<number>('allocator.garbageCollectionThreshold', 0);
    if (gc > 0) allocConf.garbage_collection_threshold = String(gc);
    const div = c.get<number>('allocator.roundupPower2Divisions', 0);
    if (div > 0) allocConf.roundup_power2_divisions = String(div);
    const maxEntries = c.get<number>('run.maxEntries', 0);
    const cap = c.get<number>('run.capGib', 0);
    return {
      stacks: c.get<'python' | 'all'>('run.stacks', 'python'),
      context: c.get<'alloc' | 'all' | 'state'>('run.context', 'alloc'),
      sampleMs: c.get<number>('run.sampleMs', 100),
      modules: c.get<'off' | 'on' | 'auto'>('run.modules', 'off'),
      record: c.get<'window' | 'full'>('run.record', 'window'),
      ...(maxEntries > 0 ? { maxEntries } : {}),
      ...(cap > 0 ? { capGib: cap } : {}),
      ...(Object.keys(allocConf).length ? { allocConf } : {}),
    };
  }
}

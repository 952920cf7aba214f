import * as vscode from 'vscode';
import { expandMappings, impliedMapping, PathMapper } from '../../core/source/pathMap';
import type { Mapping } from '../../core/source/pathMap';

const LEARNED = 'headroom.learnedPathMappings';
const ASKED = 'headroom.askedPathMappings';

/**
 * Maps frame paths to workspace files: `headroom.pathMappings` (like debug source maps), then the
 * path itself, then the longest common suffix. A tie is asked once; the answer is kept in the
 * workspace state as a prefix mapping and serves every file under the same roots.
 */
export class WorkspaceMapping {
  private files: string[] | undefined;

  constructor(
    private readonly state: vscode.Memento,
    /** Also where a frame's line being opened is noted (openFrame.ts). */
    readonly log: vscode.LogOutputChannel,
  ) {}

  /** Forget the cached file list (files were added or removed). */
  invalidate(): void {
    this.files = undefined;
  }

  private async workspaceFiles(): Promise<string[]> {
    if (!this.files) {
      const uris = await vscode.workspace.findFiles(
        '**/*.py',
        '{**/node_modules/**,**/.git/**,**/site-packages/**,**/.headroom/**}',
        50_000,
      );
      this.files = uris.map((u) => u.fsPath);
    }
    return this.files;
  }

  /** The prefix mappings in force (learned and configured): for reading a frame's source where it lies here. */
  prefixes(): Mapping {
    return this.mappings();
  }

  private mappings(): Mapping {
    const ws = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const configured = vscode.workspace.getConfiguration('headroom').get<Mapping>('pathMappings', {});
    return { ...this.state.get<Mapping>(LEARNED, {}), ...expandMappings(configured, ws) };
  }

  /**
   * Resolves every path; asks about ties (once each) when `interactive`. With `guess` false only a
   * mapping or the path itself counts, never a matching suffix (a library's `utils.py` is not the
   * user's).
   */
  async resolve(paths: readonly string[], interactive: boolean, guess = true): Promise<Map<string, string | undefined>> {
    const files = await this.workspaceFiles();
    const set = new Set(files);
    let mapper = new PathMapper(files, this.mappings(), (p) => set.has(p));
    const out = new Map<string, string | undefined>();
    for (const p of paths) {
      let r = mapper.resolve(p);
      if (r.kind === 'ambiguous' && interactive && !this.state.get<string[]>(ASKED, []).includes(p)) {
        await this.state.update(ASKED, [...this.state.get<string[]>(ASKED, []), p]);
        const none = vscode.l10n.t('None of these');
        const pick = await vscode.window.showQuickPick([...r.candidates.map((c) => vscode.workspace.asRelativePath(c)), none], {
          title: vscode.l10n.t('Headroom: which workspace file is {0}?', p),
          placeHolder: vscode.l10n.t('The snapshot was recorded on another machine; the answer is remembered for this workspace.'),
        });
        const chosen = pick && pick !== none ? r.candidates.find((c) => vscode.workspace.asRelativePath(c) === pick) : undefined;
        if (chosen) {
          const learned = { ...this.state.get<Mapping>(LEARNED, {}), ...impliedMapping(p, chosen) };
          await this.state.update(LEARNED, learned);
          this.log.info(`path mapping learned: ${JSON.stringify(impliedMapping(p, chosen))}`);
          mapper = new PathMapper(files, this.mappings(), (q) => set.has(q));
          r = mapper.resolve(p);
        }
      }
      out.set(p, r.kind === 'mapped' && (guess || r.how !== 'suffix') ? r.local : undefined);
    }
    return out;
  }
}

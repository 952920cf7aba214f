import { resolve } from 'node:path';
import type * as vscode from 'vscode';

const OWN = 'headroom.ownRunFolders';
/** Enough for years of runs; the oldest are forgotten first (they are then asked about once). */
const CAP = 2000;

/**
 * Which run folders this workspace's Headroom wrote (kept in the workspace state), and, for the
 * others (copied from a colleague, a cluster, an archive), the user's answer to "run the script
 * its launch.json names?" for this session. A run folder is data: its launch.json can name any file.
 */
export class RunOrigins {
  private readonly answers = new Map<string, boolean>();

  constructor(private readonly state: vscode.Memento) {}

  /** Called when Headroom creates a run folder. */
  record(dir: string): void {
    const own = this.state.get<string[]>(OWN, []).filter((d) => d !== resolve(dir));
    own.push(resolve(dir));
    void this.state.update(OWN, own.slice(-CAP));
  }

  isOwn(dir: string): boolean {
    return this.state.get<string[]>(OWN, []).includes(resolve(dir));
  }

  /** The session's answer for a folder from elsewhere, if it was asked already. */
  answer(dir: string): boolean | undefined {
    return this.answers.get(resolve(dir));
  }

  remember(dir: string, yes: boolean): void {
    this.answers.set(resolve(dir), yes);
  }
}

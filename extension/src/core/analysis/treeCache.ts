import type { Snapshot } from '../snapshot/model';
import { ClassNames } from '../source/classNames';
import type { LocateFile } from '../source/classNames';
import type { DeviceAnalysis } from './deviceAnalysis';
import type { ParamRecords } from '../run/paramsFile';
import { callTree } from './callTree';
import { creditParams } from './params';
import type { CallTree } from './callNode';

/**
 * The call tree at one instant, for the surfaces that ask again and again (hovers, the summary,
 * the flame graph): built once per (analysis, instant), sources read once per snapshot.
 */
export class TreeCache {
  private names: ClassNames | undefined;
  private namesFor: Snapshot | undefined;
  private last: { a: DeviceAnalysis; index: number; tree: CallTree } | undefined;

  constructor(private readonly locate?: LocateFile) {}

  /** @param records the run folder's params.jsonl, when the snapshot came from a run: parameter tensors become named leaves. */
  at(s: Snapshot, a: DeviceAnalysis, index: number, records?: ParamRecords): CallTree {
    if (this.last && this.last.a === a && this.last.index === index) return this.last.tree;
    if (this.namesFor !== s) {
      this.names = new ClassNames(this.locate);
      this.namesFor = s;
    }
    const tree = callTree(s, a, index, this.names, records ? creditParams(a, index, records) : undefined);
    this.last = { a, index, tree };
    return tree;
  }
}

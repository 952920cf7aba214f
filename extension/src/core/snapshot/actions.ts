/** Trace actions as small codes (§4.2 of the snapshot format). `free` and `user_defined` are old nightlies'. */
export const enum Action {
  Alloc = 0,
  FreeRequested = 1,
  FreeCompleted = 2,
  SegmentAlloc = 3,
  SegmentFree = 4,
  SegmentMap = 5,
  SegmentUnmap = 6,
  Snapshot = 7,
  Oom = 8,
  Free = 9,
  Other = 255,
}

// Maps, not object literals: an action is snapshot text, and `constructor` or `toString` must not
// find Object.prototype's members (a 1 GiB "constructor" event would count as an allocation).
const CODES: ReadonlyMap<string, Action> = new Map([
  ['alloc', Action.Alloc],
  ['free_requested', Action.FreeRequested],
  ['free_completed', Action.FreeCompleted],
  ['segment_alloc', Action.SegmentAlloc],
  ['segment_free', Action.SegmentFree],
  ['segment_map', Action.SegmentMap],
  ['segment_unmap', Action.SegmentUnmap],
  ['snapshot', Action.Snapshot],
  ['oom', Action.Oom],
  ['free', Action.Free],
]);

export function actionCode(name: string): Action {
  return CODES.get(name) ?? Action.Other;
}

/** actionCode for one reader: the last four names by identity first (a Map lookup per event was 2 % of a load). */
export class ActionCodes {
  // Empty slots hold the empty name, with its own code.
  private readonly names = ['', '', '', ''];
  private readonly codes = new Uint8Array(4).fill(actionCode(''));
  private next = 0;

  code(name: string): Action {
    const { names, codes } = this;
    for (let i = 0; i < 4; i++) if (names[i] === name) return codes[i]!;
    const c = actionCode(name);
    names[this.next] = name;
    codes[this.next] = c;
    this.next = (this.next + 1) & 3;
    return c;
  }
}

const NAMES: ReadonlyMap<number, string> = new Map([...CODES].map(([k, v]) => [v, k]));

export function actionName(code: number): string {
  return NAMES.get(code) ?? 'other';
}

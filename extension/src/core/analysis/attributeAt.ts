import type { Snapshot } from '../snapshot/model';
import { blockKinds } from '../kinds/blockKinds';
import { attribute } from './attribution';
import type { Attribution } from './attribution';
import type { DeviceAnalysis } from './deviceAnalysis';
import { liveAt } from './replay';
import type { Instant } from './replay';

/**
 * withKinds: each line's bytes by kind too (leaked, library workspaces…), for the surfaces that show
 * them (the report, the editor's annotations); they cost the leak check and the lifetime roles once
 * per analysis, which diff, compare and the OOM doctor do not need.
 */
export function attributeAt(s: Snapshot, a: DeviceAnalysis, instant: Instant, withKinds = false): Attribution {
  return attribute(
    s,
    a.replay.elements,
    liveAt(a.replay.elements, instant.index),
    a.classifier,
    a.backward,
    withKinds ? blockKinds(s, a) : undefined,
  );
}

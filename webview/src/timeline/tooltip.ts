import type { ElementInfo, LodRequest } from '../../../extension/src/core/timeline/protocol';
import { bytes, count, duration } from '../format';
import type { Placed } from './raster';

/**
 * What hovering a band says: a block's size, group, category, lifetime and line; or, for merged
 * small blocks, how many they are and how to see them one by one.
 */
export function describeBand(p: Placed & { request: LodRequest }, b: number, key: string, info: ElementInfo | undefined): string {
  const f = p.frame;
  const el = f.band[b]!;
  let c = 0;
  while (f.bandOff[c + 1]! <= b) c++;
  const at = `event #${count(f.sample[c]!)}`;
  if (el < 0) return `${f.bandCount[b]} small allocations, ${bytes(f.bandBytes[b]!)} · ${key}\n(each under ${bytes(p.request.minBandBytes)}: zoom in, or Ctrl+wheel to stretch y, to see them one by one)\n${at}`;
  if (!info) return `${bytes(f.bandBytes[b]!)} · ${key}\n${at}`;
  const user = info.stack.find((s) => s.user);
  const life =
    info.alloc < 0
      ? 'allocated before recording'
      : info.aliveAtEnd
        ? 'alive at the end'
        : info.freeTimeUs !== null && info.allocTimeUs !== null
          ? `lived ${duration(info.freeTimeUs - info.allocTimeUs)}`
          : `freed at #${info.free}`;
  return `${bytes(info.size)} · ${info.key}\n${info.category} · ${life}${user ? `\n${user.file.split('/').pop()}:${user.line} ${user.name}` : ''}\n${at}`;
}

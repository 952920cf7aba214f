import type { CallKind } from '../analysis/callNode';

/**
 * The flame graph channel: the host and the flame webview import these types (the webview imports
 * nothing else from the extension). Frames are named by `id`, never by path: the page can only ask
 * to open or expand a frame the host sent it, in the session it was sent in.
 */

/** One frame as the page gets it: children narrower than the host's threshold are pruned, their bytes kept in `otherBytes`. */
export interface FlameNode {
  /** Unique within a session. */
  id: number;
  kind: CallKind;
  /** `GPT2Attention.forward`, `train_leaky.evaluate`, or a bucket's name: data, shown as text only. */
  label: string;
  /** The frame's file as the snapshot recorded it ('' for buckets). */
  file: string;
  line: number;
  bytes: number;
  blocks: number;
  selfBytes: number;
  /** Bytes of the children left out (too narrow to draw, or too deep); `otherCount` of them. */
  otherBytes: number;
  otherCount: number;
  /** Plumbing folded into the edge from the parent (`nn.Module call`, `Trainer loop`). */
  folded: string[];
  /** Plumbing the self bytes were allocated through. */
  selfVia: string[];
  children: FlameNode[];
}

export interface FlameInit {
  type: 'init';
  session: number;
  /** The snapshot's label (its file name, or the run's). */
  title: string;
  /** `at peak`, `at end`, `at event #123`. */
  instantLabel: string;
  path: string;
  device: number;
  root: FlameNode;
}

export type ToFlame =
  | FlameInit
  /** The frame `node.id` again, pruned against its own width (the page zoomed into it). */
  | { type: 'subtree'; session: number; node: FlameNode }
  | { type: 'empty'; message: string };

export type FromFlame =
  | { type: 'ready' }
  /** Open the frame's file at its line. */
  | { type: 'open'; session: number; id: number }
  /** Send the frame's subtree pruned against the frame's own bytes (it is now full width). */
  | { type: 'expand'; session: number; id: number };

const id = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** Validates a message from the flame webview; false for anything malformed. */
export function isFromFlame(m: unknown): m is FromFlame {
  if (typeof m !== 'object' || m === null) return false;
  const o = m as Record<string, unknown>;
  switch (o.type) {
    case 'ready':
      return true;
    case 'open':
    case 'expand':
      return id(o.session) && id(o.id);
    default:
      return false;
  }
}

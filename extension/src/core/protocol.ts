import type { AnalyzeReport } from './report';

/**
 * Messages between the extension host and the Headroom webviews. Both sides import these types
 * (the webview imports nothing else from the extension), and both validate what they receive.
 */
export type ToWebview =
  | { type: 'summary'; title: string; path: string; report: AnalyzeReport }
  | { type: 'error'; message: string };

export type FromWebview = { type: 'ready' } | { type: 'openLine'; file: string; line: number } | { type: 'showTimeline' };

export function isFromWebview(m: unknown): m is FromWebview {
  if (typeof m !== 'object' || m === null) return false;
  const t = (m as { type?: unknown }).type;
  if (t === 'ready' || t === 'showTimeline') return true;
  if (t === 'openLine') {
    const o = m as { file?: unknown; line?: unknown };
    return typeof o.file === 'string' && typeof o.line === 'number';
  }
  return false;
}

import type { FromFlame, ToFlame } from '../../../extension/src/core/flame/protocol';

/** What the flame page remembers across hide/show and reloads: the snapshot shown, the zoom and the search. */
export interface FlameUiState {
  path: string | null;
  device: number | null;
  query: string;
  /** The zoom path's frames (layout.ts keyOf), the top first. */
  zoom: string[];
}

/**
 * The page's only way out: VS Code's webview API inside the editor, or whatever a harness puts on
 * `window.__headroomFlameHost` (the benchmark drives the page from Node through it).
 */
export interface FlameHost {
  post(m: FromFlame): void;
  onMessage(fn: (m: ToFlame) => void): void;
  getState(): FlameUiState | undefined;
  setState(s: FlameUiState): void;
}

interface VsCodeApi {
  postMessage(m: unknown): void;
  getState(): unknown;
  setState(s: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

declare global {
  interface Window {
    __headroomFlameHost?: FlameHost;
  }
}

export function connectFlameHost(): FlameHost {
  if (window.__headroomFlameHost) return window.__headroomFlameHost;
  const api = acquireVsCodeApi();
  return {
    post: (m) => api.postMessage(m),
    onMessage: (fn) => window.addEventListener('message', (e: MessageEvent) => fn(e.data as ToFlame)),
    getState: () => api.getState() as FlameUiState | undefined,
    setState: (s) => api.setState(s),
  };
}

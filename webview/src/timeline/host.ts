import type { FromTimeline, ToTimeline } from '../../../extension/src/core/timeline/protocol';

/**
 * The page's only way out: VS Code's webview API inside the editor, or whatever a harness puts on
 * `window.__headroomHost` (the benchmark drives the page from Node through it).
 */
export interface Host {
  post(m: FromTimeline): void;
  onMessage(fn: (m: ToTimeline) => void): void;
  getState<T>(): T | undefined;
  setState<T>(s: T): void;
}

interface VsCodeApi {
  postMessage(m: unknown): void;
  getState(): unknown;
  setState(s: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

declare global {
  interface Window {
    __headroomHost?: Host;
  }
}

export function connectHost(): Host {
  if (window.__headroomHost) return window.__headroomHost;
  const api = acquireVsCodeApi();
  return {
    post: (m) => api.postMessage(m),
    onMessage: (fn) => window.addEventListener('message', (e: MessageEvent) => fn(e.data as ToTimeline)),
    getState: <T>() => api.getState() as T | undefined,
    setState: (s) => api.setState(s),
  };
}

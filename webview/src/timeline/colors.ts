import type { KeyingName } from '../../../extension/src/core/timeline/protocol';

/**
 * Colours from the theme: VS Code's chart colours (--vscode-charts-*) and foreground, read through a
 * 1×1 canvas so any CSS colour syntax works, packed for ImageData (little-endian RGBA).
 */
const probe = document.createElement('canvas').getContext('2d', { willReadFrequently: true })!;

export function cssVar(name: string, fallback: string): string {
  return getComputedStyle(document.body).getPropertyValue(name).trim() || fallback;
}

export function packed(css: string, alpha = 1): number {
  probe.clearRect(0, 0, 1, 1);
  probe.fillStyle = '#000';
  probe.fillStyle = css;
  probe.fillRect(0, 0, 1, 1);
  const [r, g, b, a] = probe.getImageData(0, 0, 1, 1).data;
  return ((Math.round(a! * alpha) << 24) | (b! << 16) | (g! << 8) | r!) >>> 0;
}

/** Packed colour → CSS, for the 2D context (lines, legend swatches). */
export function cssOf(p: number): string {
  return `rgba(${p & 255}, ${(p >>> 8) & 255}, ${(p >>> 16) & 255}, ${((p >>> 24) / 255).toFixed(3)})`;
}

/** Mixes a packed colour toward white (t > 0) or black (t < 0). */
export function shade(p: number, t: number): number {
  const ch = (v: number) => Math.round(t >= 0 ? v + (255 - v) * t : v * (1 + t));
  return ((p & 0xff000000) | (ch((p >>> 16) & 255) << 16) | (ch((p >>> 8) & 255) << 8) | ch(p & 255)) >>> 0;
}

export interface Theme {
  fg: string;
  muted: string;
  grid: string;
  requested: string;
  allocated: string;
  reserved: string;
  device: string;
  process: string;
  instant: string;
  peak: string;
  palette: number[];
  categories: number[];
  highlight: number;
}

export function readTheme(): Theme {
  const c = (n: string, f: string) => cssVar(`--vscode-charts-${n}`, f);
  const base = [
    c('blue', '#3794ff'),
    c('orange', '#d18616'),
    c('green', '#89d185'),
    c('purple', '#b180d7'),
    c('yellow', '#cca700'),
    c('red', '#f14c4c'),
  ];
  const fg = cssVar('--vscode-foreground', '#cccccc');
  const palette = [
    ...base.map((x) => packed(x, 0.85)),
    ...base.map((x) => shade(packed(x, 0.85), -0.35)),
    ...base.map((x) => shade(packed(x, 0.85), 0.35)),
  ];
  return {
    fg,
    muted: cssVar('--vscode-descriptionForeground', '#999999'),
    grid: cssVar('--vscode-charts-lines', 'rgba(128,128,128,0.3)'),
    requested: fg,
    allocated: c('green', '#89d185'),
    reserved: c('orange', '#d18616'),
    device: c('red', '#f14c4c'),
    process: c('purple', '#b180d7'),
    instant: cssVar('--vscode-focusBorder', '#007fd4'),
    peak: c('red', '#f14c4c'),
    palette,
    // By kind (core/kinds/kindLabels.ts): parameters, gradients, optimizer state, activations,
    // temporaries, before recording, other, leaked (the alarming red), library workspaces (a dark
    // blue: fixed cost like the parameters, apart from the optimizer's purple).
    categories: [
      packed(base[0]!, 0.85),
      packed(base[1]!, 0.85),
      packed(base[3]!, 0.85),
      packed(base[2]!, 0.85),
      packed(base[4]!, 0.7),
      packed(fg, 0.35),
      shade(packed(base[1]!, 0.8), -0.35),
      packed(base[5]!, 0.9),
      shade(packed(base[0]!, 0.85), -0.45),
    ],
    highlight: packed(cssVar('--vscode-editor-selectionBackground', '#264f78'), 1),
  };
}

/** A band's colour: by its key under the keying shown; odd elements a shade lighter, so neighbours part. */
export function keyColor(t: Theme, keying: KeyingName, key: number, element = -1): number {
  const base =
    keying === 'category' ? (t.categories[key] ?? t.palette[0]!) : key === 0 ? t.categories[5]! : t.palette[key % t.palette.length]!;
  return element >= 0 && element & 1 ? shade(base, 0.12) : base;
}

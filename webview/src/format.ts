/** Binary units, three significant digits: how every Headroom surface writes bytes. */
export function bytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = Math.abs(n);
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${n < 0 ? '-' : ''}${u === 0 ? v : v.toFixed(v >= 100 ? 0 : v >= 10 ? 1 : 2)} ${units[u]}`;
}

const COUNT = new Intl.NumberFormat('en-US');

/** 1,647,145: one shared formatter (toLocaleString builds one per call, too slow per frame). */
export function count(n: number): string {
  return COUNT.format(n);
}

/** A duration in µs, in the largest unit that keeps it readable. */
export function duration(us: number): string {
  const a = Math.abs(us);
  if (a >= 60e6) return `${(us / 60e6).toFixed(a >= 600e6 ? 0 : 1)} min`;
  if (a >= 1e6) return `${(us / 1e6).toFixed(a >= 10e6 ? 1 : 2)} s`;
  if (a >= 1e3) return `${(us / 1e3).toFixed(a >= 10e3 ? 0 : 1)} ms`;
  return `${Math.round(us)} µs`;
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, cls?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

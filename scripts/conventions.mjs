// The conventions a tool checks instead of a reviewer's memory (`npm test` runs it; Biome checks
// formatting and the per-file lint rules, biome.json). Here: who may import what, import circles,
// and file sizes. Usage: node scripts/conventions.mjs [ROOT]; exit 1 with one line per violation.
// --write-sizes records the files now over the size target (after a split lowers the list).
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

/** Source folders whose imports are checked (tests and scripts may reach anywhere). */
const ROOTS = ['extension/src', 'webview/src'];
/** What the webview may import from outside webview/: the channel types and the shared modules. */
const WEBVIEW_MAY = [
  'extension/src/shared/',
  'extension/src/core/protocol.ts',
  'extension/src/core/timeline/protocol.ts',
  'extension/src/core/flame/protocol.ts',
];
/** The size target for a source file; larger ones are listed in scripts/sizes.json and may not grow. */
export const SIZE_LIMIT = 5 * 1024;

const posix = (p) => p.split(sep).join('/');

/** Every .ts file under the roots, as repository-relative POSIX paths. */
export function sourceFiles(root) {
  const files = ROOTS.flatMap((r) =>
    existsSync(join(root, r))
      ? readdirSync(join(root, r), { recursive: true })
          .map((f) => posix(join(r, String(f))))
          .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
      : [],
  );
  // Node 20's recursive readdir can list a file twice.
  return [...new Set(files)].sort();
}

/** A file's imports (static, dynamic, re-exports, type-only alike) with relative ones resolved to files. */
export function importsOf(root, file) {
  const info = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
  return info.importedFiles.map(({ fileName: spec }) => {
    if (!spec.startsWith('.')) return { spec, file: undefined };
    const base = posix(join(dirname(file), spec));
    const found = [base, `${base}.ts`, `${base}/index.ts`].find((c) => existsSync(join(root, c)) && statSync(join(root, c)).isFile());
    return { spec, file: found ?? base };
  });
}

/** Layer rules: the engine never sees VS Code or a front end; the webview sees only protocol and shared. */
export function importViolations(file, imp) {
  const to = imp.file;
  const out = [];
  const inHost = file.startsWith('extension/src/host/') || file === 'extension/src/extension.ts';
  if (imp.spec === 'vscode' && !inHost) out.push('imports vscode outside extension/src/host/ and extension.ts');
  if (file.startsWith('extension/src/shared/') && (!to || !to.startsWith('extension/src/shared/')) && !imp.spec.startsWith('node:'))
    out.push(`shared/ imports only shared/ (it runs in the webview too): ${imp.spec}`);
  if (file.startsWith('extension/src/shared/') && imp.spec.startsWith('node:')) out.push(`shared/ runs in the webview: no ${imp.spec}`);
  if (file.startsWith('extension/src/core/') && to && /^extension\/src\/(host|cli)\/|^webview\//.test(to))
    out.push(`the engine imports a front end: ${imp.spec}`);
  if (file.startsWith('extension/src/cli/') && to?.startsWith('extension/src/host/'))
    out.push(`the CLI imports the editor's host: ${imp.spec}`);
  if (file.startsWith('webview/')) {
    if (!to) out.push(`the webview imports a package: ${imp.spec}`);
    else if (!to.startsWith('webview/') && !WEBVIEW_MAY.some((m) => (m.endsWith('/') ? to.startsWith(m) : to === m)))
      out.push(`the webview imports beyond protocol and shared: ${imp.spec}`);
  }
  return out;
}

/** Import circles (Tarjan's strongly connected components): one closed path and the size of each. */
export function circles(graph) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const found = [];
  const visit = (v) => {
    // Iterative: a deep chain of imports must not overflow the stack.
    const work = [[v, 0]];
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    while (work.length) {
      const top = work[work.length - 1];
      const [u, i] = top;
      const next = graph.get(u) ?? [];
      if (i < next.length) {
        top[1]++;
        const w = next[i];
        if (!graph.has(w)) continue;
        if (!idx.has(w)) {
          idx.set(w, index);
          low.set(w, index++);
          stack.push(w);
          on.add(w);
          work.push([w, 0]);
        } else if (on.has(w)) low.set(u, Math.min(low.get(u), idx.get(w)));
        continue;
      }
      work.pop();
      if (work.length) {
        const p = work[work.length - 1][0];
        low.set(p, Math.min(low.get(p), low.get(u)));
      }
      if (low.get(u) === idx.get(u)) {
        const comp = [];
        let w;
        do {
          w = stack.pop();
          on.delete(w);
          comp.push(w);
        } while (w !== u);
        if (comp.length > 1 || (graph.get(u) ?? []).includes(u))
          found.push({ path: cyclePath(graph, new Set(comp), comp.sort()[0]), size: comp.length });
      }
    }
  };
  for (const v of [...graph.keys()].sort()) if (!idx.has(v)) visit(v);
  return found;
}

/** The shortest circle through `start` inside one component (breadth-first), for a readable message. */
function cyclePath(graph, comp, start) {
  const prev = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length) {
    const u = queue.shift();
    for (const w of graph.get(u) ?? []) {
      if (!comp.has(w)) continue;
      if (w === start) {
        const path = [u];
        while (prev.get(path[0]) !== undefined) path.unshift(prev.get(path[0]));
        return [...path, start];
      }
      if (!prev.has(w)) {
        prev.set(w, u);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

/** Files over the size target that are not allowed to be, or have grown past their allowance. */
export function sizeViolations(root, files, allowed) {
  const out = [];
  for (const f of files) {
    const size = statSync(join(root, f)).size;
    const cap = allowed[f];
    if (size > SIZE_LIMIT && cap === undefined)
      out.push(`${f}: ${size} bytes, over the ${SIZE_LIMIT}-byte target: split it by responsibility`);
    else if (cap !== undefined && size > cap) out.push(`${f}: ${size} bytes, grew past its allowance of ${cap} in scripts/sizes.json`);
    else if (cap !== undefined && size <= SIZE_LIMIT)
      out.push(`${f}: now ${size} bytes, within the target: remove it from scripts/sizes.json`);
  }
  for (const f of Object.keys(allowed)) if (!files.includes(f)) out.push(`${f}: listed in scripts/sizes.json but gone: remove it`);
  return out;
}

/** Every violation under `root`, one line each. */
export function check(root) {
  const files = sourceFiles(root);
  const problems = [];
  const graph = new Map();
  for (const f of files) {
    const imps = importsOf(root, f);
    graph.set(
      f,
      imps.filter((i) => i.file).map((i) => i.file),
    );
    for (const i of imps) for (const v of importViolations(f, i)) problems.push(`${f}: ${v}`);
  }
  for (const c of circles(graph))
    problems.push(`import circle: ${c.path.join(' → ')}${c.size > c.path.length - 1 ? ` (one of several among ${c.size} files)` : ''}`);
  const sizes = join(root, 'scripts/sizes.json');
  const allowed = existsSync(sizes) ? JSON.parse(readFileSync(sizes, 'utf8')) : {};
  problems.push(...sizeViolations(root, files, allowed));
  return problems;
}

/** Writes scripts/sizes.json from the files now over the target: after splitting files, to lower the list. */
function writeSizes(root) {
  const over = Object.fromEntries(
    sourceFiles(root)
      .map((f) => [f, statSync(join(root, f)).size])
      .filter(([, n]) => n > SIZE_LIMIT),
  );
  writeFileSync(join(root, 'scripts/sizes.json'), `${JSON.stringify(over, null, 2)}\n`);
  console.log(`scripts/sizes.json: ${Object.keys(over).length} files over ${SIZE_LIMIT} bytes`);
}

function main() {
  const args = process.argv.slice(2);
  const root = resolve(args.find((a) => !a.startsWith('--')) ?? '.');
  if (args.includes('--write-sizes')) return writeSizes(root);
  const problems = check(root);
  for (const p of problems) console.error(p);
  console.log(
    problems.length ? `conventions: ${problems.length} violation(s)` : `conventions: ${sourceFiles(root).length} files, no violation`,
  );
  process.exit(problems.length ? 1 : 0);
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) main();

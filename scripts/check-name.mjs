// Whether a package name is free on the npm registry and on PyPI (docs/naming.md). Each registry
// answers 404 for a free name; one that cannot be reached is said so, not guessed.
// Usage: node scripts/check-name.mjs [NAME...]   (default: torch-headroom)
const names = process.argv.slice(2).length ? process.argv.slice(2) : ['torch-headroom'];
const registries = {
  npm: (n) => `https://registry.npmjs.org/${encodeURIComponent(n)}`,
  PyPI: (n) => `https://pypi.org/pypi/${encodeURIComponent(n)}/json`,
};

async function ask(url) {
  try {
    const r = await fetch(url, { method: 'GET', signal: AbortSignal.timeout(15_000) });
    return r.status === 404 ? 'free' : r.ok ? 'taken' : `unknown (HTTP ${r.status})`;
  } catch (e) {
    return `unreachable (${e.cause?.code ?? e.message})`;
  }
}

for (const n of names) {
  for (const [registry, url] of Object.entries(registries)) console.log(`${n} on ${registry}: ${await ask(url(n))}`);
}

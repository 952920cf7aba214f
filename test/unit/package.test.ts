import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { packageVsix } from '../../scripts/vsix.mjs';
import { agentVersion } from '../../scripts/wheel.mjs';
import { ROOT } from './helpers';

interface Manifest {
  name: string;
  displayName: string;
  engines: { vscode: string };
  extensionKind: string[];
  activationEvents: string[];
  capabilities: { untrustedWorkspaces: { supported: string | boolean }; virtualWorkspaces: boolean };
  bin: Record<string, string>;
  version: string;
  main: string;
  scripts: Record<string, string>;
  contributes: { commands: { command: string; title: string; category: string }[] };
  devDependencies: Record<string, string>;
}

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest;

describe('the extension package', () => {
  it('is a VS Code manifest with lazy activation, limited trust and the CLI', () => {
    // The name free on the npm registry and PyPI (docs/naming.md): the VSIX, the CLI's package, the wheel.
    assert.equal(manifest.name, 'torch-headroom');
    // Every title and description is in package.nls.json (l10n-ready); the manifest names the keys.
    const nls = JSON.parse(readFileSync(join(ROOT, 'package.nls.json'), 'utf8')) as Record<string, string>;
    assert.equal(manifest.displayName, '%displayName%');
    assert.equal(nls.displayName, 'Headroom — PyTorch GPU Memory');
    const keys = [...readFileSync(join(ROOT, 'package.json'), 'utf8').matchAll(/"%([^"%]+)%"/g)].map((m) => m[1]!);
    assert.ok(keys.length > 50);
    assert.deepEqual(
      keys.filter((k) => typeof nls[k] !== 'string'),
      [],
      'every %key% has its text',
    );
    for (const c of manifest.contributes.commands) assert.match(c.title, /^%command\.[A-Za-z]+\.title%$/);
    assert.match(manifest.engines.vscode, /^\^1\.\d+\.\d+$/);
    assert.deepEqual(manifest.extensionKind, ['workspace']);
    assert.ok(!manifest.activationEvents.includes('*'));
    assert.ok(manifest.activationEvents.includes('onLanguage:python'));
    assert.equal(manifest.capabilities.untrustedWorkspaces.supported, 'limited');
    assert.equal(manifest.bin.headroom, './dist/cli.js');
    for (const s of ['build', 'watch', 'test', 'bench', 'package', 'start']) assert.ok(manifest.scripts[s], s);
    for (const c of manifest.contributes.commands) {
      assert.equal(c.category, 'Headroom');
      assert.match(c.command, /^headroom\.[a-z][A-Za-z]+$/);
    }
    // The Python package (the wheel, the agent) has the extension's version.
    assert.equal(agentVersion(), manifest.version);
    // @types/vscode must not be newer than the engine it claims (vsce refuses the package).
    assert.equal(manifest.devDependencies['@types/vscode'], manifest.engines.vscode.slice(1));
  });

  it('packages a VSIX that holds only what runs', () => {
    const vsix = join(mkdtempSync(join(tmpdir(), 'headroom-vsix-')), 'headroom.vsix');
    const stage = packageVsix({ out: vsix });
    const listing = execFileSync(
      'python3',
      ['-c', 'import sys, zipfile; print("\\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))', vsix],
      { encoding: 'utf8' },
    );
    const files = listing.trim().split('\n').sort();
    const agent = readdirSync(join(ROOT, 'extension', 'agent', 'headroom_agent'))
      .filter((f) => f.endsWith('.py'))
      .map((f) => `extension/extension/agent/headroom_agent/${f}`);
    assert.deepEqual(
      files,
      [
        '[Content_Types].xml',
        'extension.vsixmanifest',
        'extension/LICENSE.txt',
        'extension/dist/cli.js',
        'extension/dist/extension.js',
        'extension/dist/flame.css',
        'extension/dist/flame.js',
        'extension/dist/timeline.css',
        'extension/dist/timeline.js',
        'extension/dist/tree-sitter-python.wasm',
        'extension/dist/tree-sitter.wasm',
        'extension/dist/webview.js',
        'extension/docs/rules/HR001.md',
        'extension/docs/rules/HR002.md',
        'extension/docs/rules/HR003.md',
        'extension/docs/rules/HR004.md',
        'extension/docs/rules/HR005.md',
        'extension/docs/rules/HR006.md',
        'extension/docs/rules/HR007.md',
        'extension/docs/rules/HR008.md',
        'extension/docs/rules/HR009.md',
        'extension/docs/rules/HR010.md',
        'extension/docs/rules/HR011.md',
        'extension/docs/rules/HR012.md',
        'extension/docs/rules/HR013.md',
        'extension/docs/rules/HR014.md',
        'extension/docs/rules/HR015.md',
        'extension/docs/rules/HR016.md',
        'extension/docs/rules/HR017.md',
        'extension/docs/rules/HR018.md',
        ...agent,
        'extension/extension/agent/sitecustomize.py',
        ...readdirSync(join(ROOT, 'extension', 'agent', 'torch_headroom'))
          .filter((f) => f.endsWith('.py'))
          .map((f) => `extension/extension/agent/torch_headroom/${f}`),
        `extension/dist/torch_headroom-${manifest.version}-py3-none-any.whl`,
        'extension/package.json',
        'extension/package.nls.json',
        'extension/readme.md',
        ...['lint-fix', 'open-snapshot', 'run-script'].map((f) => `extension/docs/walkthrough/${f}.md`),
      ].sort(),
    );
    assert.ok(!files.some((f) => f.endsWith('.node')), 'the universal VSIX has no addon (it reads nvidia-smi)');
    // The production bundle is minified and still a working CLI.
    const out = execFileSync(process.execPath, [join(stage, 'dist', 'cli.js'), '--version'], { encoding: 'utf8' });
    assert.equal(out.trim(), `headroom ${JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version}`);
  });

  it('a platform VSIX (--target linux-x64) carries the NVML addon, which loads from it', (t) => {
    if (`${process.platform}-${process.arch}` !== 'linux-x64') return t.skip('the addon is built for linux-x64 here');
    const vsix = join(mkdtempSync(join(tmpdir(), 'headroom-vsix-')), 'headroom-linux-x64.vsix');
    packageVsix({ out: vsix, extra: ['--target', 'linux-x64'] });
    const py = `import sys, zipfile, json
z = zipfile.ZipFile(sys.argv[1])
m = z.read('extension.vsixmanifest').decode()
names = [n for n in z.namelist() if n.endswith('.node')]
z.extract(names[0], sys.argv[2]) if names else None
print(json.dumps({"nodes": names, "target": 'TargetPlatform="linux-x64"' in m}))`;
    const dir = mkdtempSync(join(tmpdir(), 'headroom-vsix-x-'));
    const r = JSON.parse(execFileSync('python3', ['-c', py, vsix, dir], { encoding: 'utf8' })) as { nodes: string[]; target: boolean };
    assert.deepEqual(r, { nodes: ['extension/dist/native/linux-x64/headroom_nvml.node'], target: true });
    // The packaged binary loads and answers (here: no driver, so a reason, not a crash).
    const out = execFileSync(process.execPath, ['-p', `JSON.stringify(require(${JSON.stringify(join(dir, r.nodes[0]!))}).available())`], {
      encoding: 'utf8',
    });
    assert.equal(typeof (JSON.parse(out) as { available: boolean }).available, 'boolean');
  });
});

describe('the language-model tools the manifest declares', () => {
  it('are the core tools of headroom mcp, with the same descriptions and arguments (path optional in the editor)', async () => {
    const { headroomTools } = await import('../../extension/src/core/tools/registry');
    const { editorSchema } = await import('../../extension/src/core/tools/editorSchema');
    const declared = (
      manifest.contributes as unknown as {
        languageModelTools: { name: string; modelDescription: string; inputSchema: unknown; canBeReferencedInPrompt: boolean }[];
      }
    ).languageModelTools;
    const tools = headroomTools(() => Promise.reject(new Error('no parser needed')));
    assert.deepEqual(
      declared.map((t) => t.name),
      tools.map((t) => t.name),
    );
    for (const t of tools) {
      const d = declared.find((x) => x.name === t.name)!;
      assert.equal(d.modelDescription, t.description);
      assert.deepEqual(d.inputSchema, editorSchema(t));
      assert.equal(d.canBeReferencedInPrompt, true);
    }
    assert.match(manifest.engines.vscode, /^\^1\.(99|1\d\d)\./, 'vscode.lm.registerTool needs VS Code 1.99 or newer here');
  });
});

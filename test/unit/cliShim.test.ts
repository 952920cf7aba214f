// The extension's `headroom` for the integrated terminal: the shim cliShims writes runs the built
// CLI with a given Node, from a folder whose name has a space and a quote in it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { cliShims } from '../../extension/src/core/run/cliShim';
import { ROOT } from './helpers';

describe("the terminal's headroom command", () => {
  it('runs the CLI bundle with the given Node, whatever the folder is called', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'headroom-shim-')), "it's here $HOME");
    mkdirSync(dir);
    const [shim] = cliShims(process.execPath, join(ROOT, 'dist', 'cli.js'), 'linux');
    const path = join(dir, shim!.name);
    writeFileSync(path, shim!.text);
    chmodSync(path, 0o755);
    const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;
    assert.equal(execFileSync(path, ['--version'], { encoding: 'utf8' }), `headroom ${version}\n`);
    // Its arguments reach the CLI as given.
    const r = execFileSync(path, ['lint', '-'], { input: 'total = 0\n', encoding: 'utf8' });
    assert.equal(r, '');
  });

  it('quotes for cmd.exe and refuses what no quoting can carry', () => {
    const [cmd] = cliShims('C:\\Program Files\\Code\\Code.exe', 'C:\\ext\\100%\\dist\\cli.js', 'win32');
    assert.equal(cmd!.name, 'headroom.cmd');
    assert.match(cmd!.text, /"C:\\Program Files\\Code\\Code\.exe" "C:\\ext\\100%%\\dist\\cli\.js" %\*\r\n$/);
    assert.throws(() => cliShims('/usr/bin/node', '/a\nb/cli.js', 'linux'), RangeError);
    assert.throws(() => cliShims('C:\\node.exe', 'C:\\a"b\\cli.js', 'win32'), RangeError);
  });
});

/**
 * The `headroom` command of an installed extension: a small script that runs the extension's own
 * CLI bundle with the editor's Node (Electron's binary acts as Node with ELECTRON_RUN_AS_NODE=1;
 * a remote or code-server host's node ignores it), for the integrated terminal's PATH.
 */
export interface ShimFile {
  name: string;
  text: string;
}

/** POSIX sh: a path in single quotes, each ' as '\''. */
const shQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** cmd.exe: a path in double quotes (a path cannot hold "); % doubled so it is not expanded. */
const cmdQuote = (s: string): string => `"${s.replace(/%/g, '%%')}"`;

export function cliShims(nodePath: string, cliPath: string, platform: NodeJS.Platform): ShimFile[] {
  if (/[\r\n\0]/.test(nodePath + cliPath) || (platform === 'win32' && /"/.test(nodePath + cliPath)))
    throw new RangeError('a path with a line break, NUL or (on Windows) a quote cannot go into the headroom command');
  if (platform === 'win32') {
    return [
      {
        name: 'headroom.cmd',
        text: `@echo off\r\nrem The Headroom extension's CLI, for the integrated terminal.\r\nset ELECTRON_RUN_AS_NODE=1\r\n${cmdQuote(nodePath)} ${cmdQuote(cliPath)} %*\r\n`,
      },
    ];
  }
  return [
    {
      name: 'headroom',
      text: `#!/bin/sh\n# The Headroom extension's CLI, for the integrated terminal.\nELECTRON_RUN_AS_NODE=1 exec ${shQuote(nodePath)} ${shQuote(cliPath)} "$@"\n`,
    },
  ];
}

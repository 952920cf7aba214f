import { isSnapshotError } from '../core/errors';
import { ANALYZE_USAGE, analyzeCommand } from './analyze';
import { UsageError } from './args';
import { CHECK_USAGE, checkCommand } from './check';
import { DIFF_USAGE, diffCommand } from './diff';
import { LINT_USAGE, lintCommand } from './lint';
import { LIMIT_USAGE } from './load';
import { RUN_USAGE, runCommand } from './run';
import type { Io } from './io';
import { processIo } from './io';
import { plain, plainLines } from '../core/text';

declare const __HEADROOM_VERSION__: string | undefined;
/** Injected by esbuild from package.json; 'dev' when run from source. */
const VERSION = typeof __HEADROOM_VERSION__ === 'string' ? __HEADROOM_VERSION__ : 'dev';

const USAGE = `headroom — PyTorch CUDA memory snapshots, analyzed

${ANALYZE_USAGE}

${CHECK_USAGE}

${DIFF_USAGE}

${LINT_USAGE}

${RUN_USAGE}

Global options: --debug (show stack traces of errors), --help, --version
${LIMIT_USAGE}
Exit codes: 0 ok, 1 over budget (check) or an error-level finding (lint), 2 error.`;

type Command = (argv: readonly string[], io: Io) => Promise<number>;

const COMMANDS: Record<string, Command> = {
  analyze: analyzeCommand,
  check: checkCommand,
  diff: diffCommand,
  lint: lintCommand,
  run: runCommand,
};

/** Runs the CLI and returns its exit code. Errors are one clear line on stderr, exit code 2. */
export async function main(argv: readonly string[], io: Io = processIo): Promise<number> {
  const debug = argv.includes('--debug');
  const args = argv.filter((a) => a !== '--debug');
  try {
    const [name, ...rest] = args;
    if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
      io.out(USAGE + '\n');
      return name === undefined ? 2 : 0;
    }
    if (name === '--version') {
      io.out(`headroom ${VERSION}\n`);
      return 0;
    }
    const cmd = COMMANDS[name];
    if (!cmd) throw new UsageError(`unknown command "${name}" (try: ${Object.keys(COMMANDS).join(', ')})`);
    return await cmd(rest, io);
  } catch (e) {
    if (debug) io.err(`${(e as Error).stack ?? String(e)}\n`);
    // Messages can quote paths and snapshot text: shown escaped, one line each (usage keeps its lines).
    if (e instanceof UsageError) io.err(`headroom: ${plainLines(e.message)}\n`);
    else if (isSnapshotError(e)) io.err(`headroom: cannot analyze: ${plain(e.message)}${e.offset !== undefined ? ` (at byte ${e.offset})` : ''}\n`);
    else io.err(`headroom: internal error: ${plain(String((e as Error).message ?? e))} (run with --debug for details)\n`);
    return 2;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    () => {
      process.exitCode = 2;
    },
  );
}

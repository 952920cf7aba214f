import { isSnapshotError } from '../core/errors';
import { ANALYZE_USAGE, analyzeCommand } from './analyze';
import { UsageError } from './args';
import { CHECK_USAGE, checkCommand } from './check';
import { DIFF_USAGE, diffCommand } from './diff';
import { LINT_USAGE, lintCommand } from './lint';
import { LIMIT_USAGE } from './load';
import { MCP_USAGE, mcpCommand } from './mcp';
import { RANKS_USAGE, ranksCommand } from './ranks';
import { RUN_USAGE, runCommand } from './run';
import { WHATIF_USAGE, whatifCommand } from './whatif';
import type { Io } from './io';
import { processIo } from './io';
import { plain, plainLines } from '../core/text';
import { VERSION } from './version';

const USAGE = `headroom — PyTorch CUDA memory snapshots, analyzed

${ANALYZE_USAGE}

${CHECK_USAGE}

${DIFF_USAGE}

${LINT_USAGE}

${MCP_USAGE}

${RANKS_USAGE}

${RUN_USAGE}

${WHATIF_USAGE}

Global options: --debug (show stack traces of errors), --help (also after a command: headroom analyze --help), --version
${LIMIT_USAGE}
Exit codes: 0 ok, 1 over budget (check) or an error-level finding (lint), 2 error (a usage error, an
  unreadable snapshot, no Python file to lint, or one that could not be linted); run exits with the
  workload's own code.`;

type Command = (argv: readonly string[], io: Io) => Promise<number>;

/** Each command and its help: its usage, plus how to raise the reader's limits where it reads snapshots. */
const COMMANDS: Record<string, { run: Command; help: string }> = {
  analyze: { run: analyzeCommand, help: `${ANALYZE_USAGE}\n\n${LIMIT_USAGE}` },
  check: { run: checkCommand, help: `${CHECK_USAGE}\n\n${LIMIT_USAGE}` },
  diff: { run: diffCommand, help: `${DIFF_USAGE}\n\n${LIMIT_USAGE}` },
  lint: { run: lintCommand, help: LINT_USAGE },
  mcp: { run: mcpCommand, help: `${MCP_USAGE}\n\n${LIMIT_USAGE}` },
  ranks: { run: ranksCommand, help: `${RANKS_USAGE}\n\n${LIMIT_USAGE}` },
  run: { run: runCommand, help: `${RUN_USAGE}\n\n${LIMIT_USAGE}` },
  whatif: { run: whatifCommand, help: `${WHATIF_USAGE}\n\n${LIMIT_USAGE}` },
};

const isHelp = (a: string): boolean => a === '--help' || a === '-h';

/** `--help` among a command's own options; after `--` it belongs to the workload (`run -- python x.py --help`). */
function wantsHelp(rest: readonly string[]): boolean {
  const sep = rest.indexOf('--');
  return (sep < 0 ? rest : rest.slice(0, sep)).some(isHelp);
}

/** Runs the CLI and returns its exit code. Errors are one clear line on stderr, exit code 2. */
export async function main(argv: readonly string[], io: Io = processIo): Promise<number> {
  // Ours before `--`; after it, the workload's (`run -- python x.py --debug`).
  const sep = argv.indexOf('--');
  const own = sep < 0 ? argv : argv.slice(0, sep);
  const debug = own.includes('--debug');
  const args = [...own.filter((a) => a !== '--debug'), ...(sep < 0 ? [] : argv.slice(sep))];
  try {
    const [name, ...rest] = args;
    if (name === undefined || isHelp(name) || name === 'help') {
      // `headroom help analyze` is `headroom analyze --help`.
      const topic = name === 'help' && rest[0] !== undefined ? COMMANDS[rest[0]] : undefined;
      io.out((topic?.help ?? USAGE) + '\n');
      return name === undefined ? 2 : 0;
    }
    if (name === '--version') {
      io.out(`headroom ${VERSION}\n`);
      return 0;
    }
    const cmd = COMMANDS[name];
    if (!cmd) throw new UsageError(`unknown command "${name}" (try: ${Object.keys(COMMANDS).join(', ')}, or --help)`);
    if (wantsHelp(rest)) {
      io.out(cmd.help + '\n');
      return 0;
    }
    return await cmd.run(rest, io);
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
  // A reader that stops early (`| head`) closes the pipe: the output it wanted is out, nothing failed.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
    process.exit(process.exitCode ?? 0);
  });
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    () => {
      process.exitCode = 2;
    },
  );
}

import { isSnapshotError } from '../core/errors';
import type { SnapshotErrorCode } from '../core/errors';
import { ANALYZE_USAGE, analyzeCommand } from './analyze';
import { UsageError } from './args';
import { CHECK_USAGE, checkCommand } from './check';
import { DEMO_USAGE, demoCommand } from './demo';
import { DIFF_USAGE, diffCommand } from './diff';
import { LINT_USAGE, lintCommand } from './lint';
import { LIMIT_USAGE } from './load';
import { MCP_USAGE, mcpCommand } from './mcp';
import { RANKS_USAGE, ranksCommand } from './ranks';
import { RUN_USAGE, runCommand } from './run';
import { WHATIF_USAGE, whatifCommand } from './whatif';
import { WHEEL_USAGE, wheelCommand } from './wheel';
import type { Io } from './io';
import { exitQuietlyOnClosedPipe, processIo } from './io';
import { plain, plainLines } from '../shared/text';
import { VERSION } from './version';

/** One screen: what each command is for; `headroom help COMMAND` has its options and examples. */
const USAGE = `headroom — PyTorch CUDA memory: why it ran out, which lines hold it, what leaks, what would fit

usage: headroom COMMAND [OPTIONS]     (headroom help COMMAND: its options and examples)

Read a snapshot (.pickle, .pickle.gz) or a run folder
  analyze   the peak, the source lines holding memory at it, fragmentation, OOMs
  check     exit 1 over a memory budget or on a leak (CI); --explain-oom: why a run, a log or a
            pasted message ran out of memory
  diff      each source line's change between two peaks
  whatif    what another allocator setting, batch or sequence length would do; the largest batch
  ranks     a torchrun run's ranks side by side: peaks, imbalance, the lines that differ
Record
  run       run a command (python train.py, torchrun …) with recording on, into a run folder
  wheel     the path of the Python package: pip install "$(headroom wheel)", then
            python -m torch_headroom train.py, torch_headroom.record(), or a trainer callback
Code
  lint      GPU-memory bugs in Python files (total_loss += loss, evaluation without no_grad …)
More
  demo      write a demo script and a real snapshot of it into ./headroom-demo
  mcp       these analyses as tools for assistants (Model Context Protocol over stdio)
  help limits   the snapshot reader's limits, and how to raise them

Examples
  headroom demo && headroom analyze headroom-demo/leaky_demo.pickle
  headroom run -- python train.py --epochs 1
  pbpaste | headroom check - --explain-oom
  headroom lint src/

Global options: --debug (stack traces of errors), --version.
Exit codes: 0 ok; 1 over budget (check) or an error-level finding (lint); 2 an error (usage, an
unreadable file, nothing to lint); run exits with the workload's own code.`;

const LIMITS_HELP = `headroom help limits

  Snapshots, logs and run folders come from anyone: every reader has limits, generous for real
  captures, so that a hostile file fails fast with a clear error instead of hanging or eating memory.
  An error names the limit it hit. When the file is trustworthy, raise it for one command:
  ${LIMIT_USAGE}
  In the editor: the headroom.limits setting, e.g. {"trace-entries": "200M"}.`;

type Command = (argv: readonly string[], io: Io) => Promise<number>;

/** Each command and its help: its usage, plus how to raise the reader's limits where it reads snapshots. */
const COMMANDS: Record<string, { run: Command; help: string }> = {
  analyze: { run: analyzeCommand, help: ANALYZE_USAGE },
  check: { run: checkCommand, help: CHECK_USAGE },
  demo: { run: demoCommand, help: DEMO_USAGE },
  diff: { run: diffCommand, help: DIFF_USAGE },
  lint: { run: lintCommand, help: LINT_USAGE },
  mcp: { run: mcpCommand, help: MCP_USAGE },
  ranks: { run: ranksCommand, help: RANKS_USAGE },
  run: { run: runCommand, help: RUN_USAGE },
  whatif: { run: whatifCommand, help: WHATIF_USAGE },
  wheel: { run: wheelCommand, help: WHEEL_USAGE },
};

/** `headroom help TOPIC`: a command, or limits. */
const TOPICS: Record<string, string> = {
  limits: LIMITS_HELP,
  ...Object.fromEntries(Object.entries(COMMANDS).map(([k, c]) => [k, c.help])),
};

const isHelp = (a: string): boolean => a === '--help' || a === '-h';

/** `--help` among a command's own options; after `--` it belongs to the workload (`run -- python x.py --help`). */
function wantsHelp(rest: readonly string[]): boolean {
  const sep = rest.indexOf('--');
  return (sep < 0 ? rest : rest.slice(0, sep)).some(isHelp);
}

/** What to do about a file that is not a readable snapshot, after the reason. */
const SNAPSHOT_FIX: Partial<Record<SnapshotErrorCode, string>> = {
  'not-pickle':
    '. A snapshot is what torch.cuda.memory._dump_snapshot() writes; for a log or a pasted OOM message: headroom check FILE --explain-oom',
  'wrong-shape': '. A snapshot is what torch.cuda.memory._dump_snapshot() writes (or headroom run, or python -m torch_headroom)',
  truncated: '. The file ends early: copy it again, or wait until the process that writes it has finished',
};

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
      if (name === 'help' && rest[0] !== undefined && !(rest[0] in TOPICS))
        throw new UsageError(`no help on "${rest[0]}" (topics: ${Object.keys(TOPICS).join(', ')})`);
      const topic = name === 'help' && rest[0] !== undefined ? TOPICS[rest[0]] : undefined;
      io.out((topic ?? USAGE) + '\n');
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
    else if (isSnapshotError(e))
      io.err(
        `headroom: cannot analyze: ${plain(e.message)}${e.offset !== undefined ? ` (at byte ${e.offset})` : ''}${SNAPSHOT_FIX[e.code] ?? ''}\n`,
      );
    else io.err(`headroom: internal error: ${plain(String((e as Error).message ?? e))} (run with --debug for details)\n`);
    return 2;
  }
}

if (require.main === module) {
  exitQuietlyOnClosedPipe();
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    () => {
      process.exitCode = 2;
    },
  );
}

/** Where a command writes. The real CLI binds it to stdout/stderr; nothing else is global. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
}

export const processIo: Io = {
  out: (t) => void process.stdout.write(t),
  err: (t) => void process.stderr.write(t),
};

/**
 * A reader that stops early (`| head -1`) closes the pipe: the output it wanted is out and nothing
 * failed, so EPIPE on stdout or stderr ends the process quietly with the code it had, as Unix tools
 * do. Another write error (a full disk) is one typed line, never a stack trace.
 */
export function exitQuietlyOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr])
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE' && stream === process.stdout)
        process.stderr.write(`headroom: cannot write the output (${e.code ?? e.message})\n`);
      process.exit(e.code === 'EPIPE' ? (process.exitCode ?? 0) : 2);
    });
}

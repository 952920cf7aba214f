import { UsageError } from './args';

/** Standard input whole, up to maxBytes (a file piped to `lint -` or `analyze -`); over it, a usage error that says what to do. */
export async function readStdinAll(maxBytes: number, what: string, stdin: NodeJS.ReadableStream = process.stdin): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const c of stdin) {
    const b = Buffer.isBuffer(c) ? c : Buffer.from(String(c));
    total += b.length;
    if (total > maxBytes) throw new UsageError(`standard input is over ${maxBytes / (1 << 20)} MiB: ${what}`);
    chunks.push(b);
  }
  return Buffer.concat(chunks);
}

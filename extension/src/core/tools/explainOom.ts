import { closeSync, readSync, statSync } from 'node:fs';
import { diagnoseMessage, diagnoseSnapshot, renderDiagnosis } from '../diagnose/oom';
import { parseOomMessages } from '../oomMessage';
import { deviceFactsBeside } from '../run/deviceFacts';
import { openRegularSync } from '../safeFile';
import { DEVICE_PROP, int, openSource, PAGE_PROP, PATH_PROP, str } from './input';
import { paged } from './page';
import { ToolInputError } from './types';
import type { ToolDef } from './types';

/** A log holds the OOM message in its last part: at most this much of a text file is read. */
const LOG_BYTES = 4 << 20;

function readHead(path: string): { pickle: boolean; text: string } {
  let fd: number;
  try {
    fd = openRegularSync(path).fd;
  } catch {
    throw new ToolInputError(`${path} is not a regular file`);
  }
  try {
    const buf = Buffer.alloc(LOG_BYTES);
    const n = readSync(fd, buf, 0, LOG_BYTES, 0);
    // Pickles start with PROTO (0x80); a gzip'd snapshot with 1f 8b.
    const pickle = n > 1 && (buf[0] === 0x80 || (buf[0] === 0x1f && buf[1] === 0x8b));
    return { pickle, text: pickle ? '' : buf.subarray(0, n).toString('utf8') };
  } finally {
    closeSync(fd);
  }
}

/** The OOM doctor: for each OOM in a snapshot (or each CUDA OOM message in a log), its kind, proof and remedies. */
export const explainOomTool: ToolDef = {
  name: 'headroom_explain_oom',
  title: 'Explain a CUDA out-of-memory error',
  description:
    "Explains each CUDA out-of-memory error in a PyTorch memory snapshot, a Headroom run folder, or a text file holding the OOM message (a log): whether it is fragmentation, a memory cap, non-PyTorch memory or real demand, with the figures that prove it and the remedies.",
  inputSchema: {
    type: 'object',
    properties: { path: { type: 'string', description: 'A snapshot, a Headroom run folder, or a log / text file with the OOM message' }, device: DEVICE_PROP, page: PAGE_PROP },
    required: ['path'],
    additionalProperties: false,
  },
  async run(args) {
    const path = str(args, 'path')!;
    const page = int(args, 'page', 1);
    let isDir = false;
    try {
      isDir = statSync(path).isDirectory();
    } catch {
      throw new ToolInputError(`no such file or folder: ${path}`);
    }
    if (!isDir) {
      const head = readHead(path);
      if (!head.pickle) {
        const ms = parseOomMessages(head.text);
        if (!ms.length) return `no CUDA out-of-memory message in ${path}`;
        return paged(ms.flatMap((m) => renderDiagnosis(diagnoseMessage(m)).trimEnd().split('\n')), page);
      }
    }
    const o = await openSource(path, int(args, 'device', 0));
    if (!o.analysis.ooms.length) return `no OOM recorded in ${o.file} (device ${o.analysis.device})`;
    const facts = deviceFactsBeside(o.file, o.analysis.device);
    const lines = o.analysis.ooms.flatMap((oom) => [`device ${o.analysis.device}, event #${oom.index}:`, ...renderDiagnosis(diagnoseSnapshot(o.snapshot, o.analysis, oom, facts)).trimEnd().split('\n')]);
    return paged(lines, page);
  },
};

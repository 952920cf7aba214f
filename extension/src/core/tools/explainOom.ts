import { statSync } from 'node:fs';
import { diagnoseMessage, diagnoseSnapshot, renderDiagnosis } from '../diagnose/oom';
import { parseOomMessages } from '../oomMessage';
import { deviceFactsBeside } from '../run/deviceFacts';
import { isSnapshotFile, readLogTail } from '../logFile';
import { DEVICE_PROP, int, openSource, PAGE_PROP, str } from './input';
import { paged } from './page';
import { ToolInputError } from './types';
import type { ToolDef } from './types';

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
    if (!isDir && !isSnapshotFile(path)) {
      let text: string;
      try {
        text = readLogTail(path);
      } catch {
        throw new ToolInputError(`${path} is not a regular file`);
      }
      const ms = parseOomMessages(text);
      if (!ms.length) return `no CUDA out-of-memory message in ${path}`;
      return paged(ms.flatMap((m) => renderDiagnosis(diagnoseMessage(m)).trimEnd().split('\n')), page);
    }
    const o = await openSource(path, int(args, 'device', 0));
    if (!o.analysis.ooms.length) return `no OOM recorded in ${o.file} (device ${o.analysis.device})`;
    const facts = deviceFactsBeside(o.file, o.analysis.device);
    const lines = o.analysis.ooms.flatMap((oom) => [`device ${o.analysis.device}, event #${oom.index}:`, ...renderDiagnosis(diagnoseSnapshot(o.snapshot, o.analysis, oom, facts)).trimEnd().split('\n')]);
    return paged(lines, page);
  },
};

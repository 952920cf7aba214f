import { statSync } from 'node:fs';
import { explainOomText, omittedNote, placeOf } from '../diagnose/explainText';
import { diagnoseWithin } from '../diagnose/explainSnapshot';
import { withRunEvidence } from '../diagnose/oomEvidence';
import { renderDiagnosis } from '../diagnose/oomText';
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
    "Explains each CUDA out-of-memory error in a PyTorch memory snapshot, a Headroom run folder, or a text file holding OOM messages (a log, a pasted message, any PyTorch version): whether it is fragmentation, a memory cap, non-PyTorch memory, real demand or unknown (no figures), with the figures read and the remedies. With `run`, a Headroom run folder's snapshot of the same OOM becomes the evidence for the verdict.",
  inputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'A snapshot, a Headroom run folder, or a log / text file with the OOM message' },
      run: { type: 'string', description: 'For a log: the Headroom run folder that recorded the same OOM, or a snapshot in it (optional)' },
      device: DEVICE_PROP,
      page: PAGE_PROP,
    },
    required: ['path'],
    additionalProperties: false,
  },
  paths: ['path', 'run'],
  async run(args, files) {
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
      const explained = explainOomText(text);
      let found = explained.found;
      if (!found.length) return paged([`no CUDA out-of-memory message in ${path}`]);
      const run = str(args, 'run', false);
      // A run that cannot be read leaves the messages' own readings, and says why.
      let note: string[] = [];
      if (run !== undefined)
        found = await withRunEvidence(found, run).catch(
          (e: unknown) => ((note = [`no evidence from ${run}: ${(e as Error).message}`]), found),
        );
      const lines = found.flatMap((e, i) =>
        renderDiagnosis(e.diagnosis, placeOf(found, i, path))
          .trimEnd()
          .split('\n'),
      );
      return paged([...lines, ...(explained.omitted ? [omittedNote(explained.omitted)] : []), ...note], page);
    }
    const o = await openSource(path, int(args, 'device', 0), files);
    if (!o.analysis.ooms.length) return paged([`no OOM recorded in ${o.file} (device ${o.analysis.device})`]);
    // Within the doctor's budget (20,000 OOMs would each read the whole trace: issue 39); what it
    // left out is said first, as the answer's pages stop at a bound.
    const { diagnosed, note } = diagnoseWithin(o.snapshot, o.analysis, o.file);
    const lines = diagnosed.flatMap(({ o: oom, d }) => [
      `device ${o.analysis.device}, event #${oom.index}:`,
      ...renderDiagnosis(d).trimEnd().split('\n'),
    ]);
    return paged([...(note ? [`${note}.`] : []), ...lines], page);
  },
};

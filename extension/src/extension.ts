import { isAbsolute, join } from 'node:path';
import * as vscode from 'vscode';
import { PythonParser } from './core/lint/syntax/parser';
import { CommandId } from './host/commandIds';
import { Config } from './host/config';
import { OomExplanations } from './host/explainOom';
import { OomTerminalLinks, watchShellOutput } from './host/oomTerminal';
import { RunMomentActions } from './host/memory/runActions';
import { GpuMonitor } from './host/gpu/monitor';
import { GpusPage } from './host/gpu/gpusPage';
import { LintCodeActions } from './host/lint/codeActions';
import { LintDiagnostics } from './host/lint/diagnostics';
import { lintWorkspaceCommand } from './host/lint/scan';
import { createLog } from './host/log';
import { MainCodeLens } from './host/mainCodeLens';
import { compareCommand, selectDeviceCommand, showMemoryAtCommand } from './host/memory/commands';
import { MemoryDecorations } from './host/memory/decorations';
import { MemoryHover } from './host/memory/hover';
import { MemoryLens } from './host/memory/lens';
import { WorkspaceMapping } from './host/memory/mapping';
import { SummaryTree } from './host/memory/tree';
import { RunDiagnostics } from './host/memory/runDiagnostics';
import { MemoryView } from './host/memory/view';
import { openSnapshotCommand, showSnapshot, showSummaryPanel } from './host/openSnapshot';
import { LiveSnapshots, notifyFinished, openRunCommand, runFileCommand, runTorchrunCommand } from './host/runCommands';
import { rerunWithCommand } from './host/rerun';
import { RunOrigins } from './host/runOrigin';
import { RunController } from './host/runs';
import { SnapshotEditor } from './host/snapshotEditor';
import { MemoryStatusBar } from './host/statusBar';
import { TimelinePanel } from './host/timeline/panel';
import { FlamePanel } from './host/flame/panel';
import { stepDone } from './host/walkthrough';
import { showAssistantSummary } from './host/assistantView';
import { registerLmTools } from './host/lmTools';
import { putCliOnTerminalPath } from './host/terminalPath';

/** Composes the extension. Every disposable is registered here, in context.subscriptions. */
export function activate(context: vscode.ExtensionContext): void {
  const log = createLog();
  // Headroom's id before it was renamed torch-headroom: both would register the same views.
  if (vscode.extensions.getExtension('headroom-dev.headroom')) {
    log.error('an older Headroom (headroom-dev.headroom) is installed beside this one: not activated');
    void vscode.window.showErrorMessage(
      vscode.l10n.t('Headroom is now torch-headroom: uninstall the older "headroom-dev.headroom" extension, then reload the window.'),
    );
    context.subscriptions.push(log);
    return;
  }
  const mapping = new WorkspaceMapping(context.workspaceState, log);
  const view = new MemoryView(mapping);
  const deps = {
    extensionUri: context.extensionUri,
    log,
    view,
    track: (d: vscode.Disposable) => context.subscriptions.push(d),
  };
  const live = new LiveSnapshots(deps);
  const gpus = new GpuMonitor(context.extensionPath, log);
  const origins = new RunOrigins(context.workspaceState);
  const runs = new RunController(
    join(context.extensionPath, 'extension', 'agent'),
    log,
    (r) => void notifyFinished(deps, r),
    (r, path, kind) => live.offer(r, path, kind),
    () => gpus.source(),
    origins,
  );
  const runsDir = () => {
    const ws = vscode.workspace.workspaceFolders?.[0];
    if (!ws) return undefined;
    const f = new Config(ws.uri).runsFolder;
    return isAbsolute(f) ? f : join(ws.uri.fsPath, f);
  };
  const tree = new SummaryTree(view, mapping, runsDir);
  const reopen = async (path: string, device: number | null) => {
    if (!(await showSnapshot(deps, vscode.Uri.file(path)))) return;
    if (device !== null && device !== view.current?.device && view.current?.snapshot.devices.includes(device)) await view.setDevice(device);
  };
  const timeline = new TimelinePanel(context.extensionUri, view, mapping, runs, log, reopen, gpus);
  const flame = new FlamePanel(context.extensionUri, view, mapping, log, reopen);
  const gpusPage = new GpusPage(gpus);
  const runDiagnostics = new RunDiagnostics(view, mapping);
  const oomExplanations = new OomExplanations(runsDir);
  const cmd = (id: CommandId | string, fn: (...args: never[]) => unknown) => vscode.commands.registerCommand(id, fn);
  const python = { language: 'python', scheme: 'file' };
  const hover = new MemoryHover(view, mapping);
  let lintParser: Promise<PythonParser> | undefined;
  context.subscriptions.push(
    log,
    view,
    runs,
    tree,
    timeline,
    vscode.window.registerWebviewPanelSerializer(TimelinePanel.viewType, {
      deserializeWebviewPanel: (panel, state: { path?: unknown; device?: unknown } | undefined) => timeline.revive(panel, state),
    }),
    flame,
    vscode.window.registerWebviewPanelSerializer(FlamePanel.viewType, {
      deserializeWebviewPanel: (panel, state: { path?: unknown; device?: unknown } | undefined) => flame.revive(panel, state),
    }),
    gpus,
    gpusPage,
    runDiagnostics,
    vscode.workspace.registerTextDocumentContentProvider(OomExplanations.scheme, oomExplanations),
    vscode.window.registerTerminalLinkProvider(new OomTerminalLinks(oomExplanations)),
    watchShellOutput(oomExplanations) ?? new vscode.Disposable(() => undefined),
    vscode.workspace.registerTextDocumentContentProvider(GpusPage.scheme, gpusPage),
    new MemoryStatusBar(runs, gpus),
    new MemoryDecorations(view),
    cmd(CommandId.QuickFixApplied, () => stepDone('quickFixApplied')),
    vscode.languages.registerCodeLensProvider(python, new MainCodeLens()),
    vscode.languages.registerCodeLensProvider(python, new MemoryLens(view, mapping)),
    vscode.languages.registerHoverProvider(python, hover),
    cmd(CommandId.ToggleHoverLibraryFrames, () => hover.toggleLibrary()),
    cmd(CommandId.OpenBreakdownFrame, (i?: unknown) => hover.openBreakdownFrame(i)),
    cmd(CommandId.ShowAssistantSummary, () => showAssistantSummary()),
    registerLmTools(view, () => (lintParser ??= PythonParser.load(join(context.extensionPath, 'dist')))),
    vscode.languages.registerCodeActionsProvider(python, new RunMomentActions(runDiagnostics), {
      providedCodeActionKinds: RunMomentActions.kinds,
    }),
    vscode.window.registerTreeDataProvider('headroom.summary', tree),
    vscode.window.registerCustomEditorProvider(SnapshotEditor.viewType, new SnapshotEditor(deps), {
      supportsMultipleEditorsPerDocument: false,
    }),
    vscode.workspace.onDidCreateFiles(() => mapping.invalidate()),
    vscode.workspace.onDidDeleteFiles(() => mapping.invalidate()),
    runs.onDidChange(() => tree.refresh()),
    cmd(CommandId.OpenSnapshot, (uri?: vscode.Uri) => openSnapshotCommand(deps, uri)),
    cmd(CommandId.RunFile, (uri?: vscode.Uri) => runFileCommand(runs, uri)),
    cmd(CommandId.RunTorchrun, (uri?: vscode.Uri) => runTorchrunCommand(runs, uri)),
    cmd(CommandId.CaptureSnapshot, () => runs.capture()),
    cmd(CommandId.StopRun, () => runs.stop()),
    cmd(CommandId.OpenRun, (uri?: vscode.Uri) => openRunCommand(deps, uri)),
    cmd(CommandId.ToggleAnnotations, () => view.toggle()),
    cmd(CommandId.ShowMemoryAt, (at?: 'peak' | 'end' | number) => showMemoryAtCommand(deps, at)),
    cmd(CommandId.SelectDevice, () => selectDeviceCommand(deps)),
    cmd(CommandId.CompareSnapshots, (a?: vscode.Uri, b?: vscode.Uri) => compareCommand(deps, a, b)),
    cmd(CommandId.ShowSummary, () => showSummaryPanel(deps)),
    // With an event index (a leak's or an OOM's quick fix): the timeline at that moment.
    cmd(CommandId.ShowTimeline, async (at?: unknown) => {
      if (typeof at === 'number' && Number.isInteger(at)) await view.setInstant(at);
      timeline.show();
    }),
    // With an event index (the timeline's button): the flame graph at that instant.
    cmd(CommandId.ShowFlameGraph, async (at?: unknown) => {
      if (typeof at === 'number' && Number.isInteger(at)) await view.setInstant(at);
      flame.show();
    }),
    cmd(CommandId.ShowGpus, () => gpusPage.show()),
    cmd(CommandId.ExplainOom, () => oomExplanations.explain()),
    cmd(CommandId.RerunWith, (snapshot?: string, allocConf?: Record<string, string>, capGib?: number) =>
      rerunWithCommand(runs, origins, typeof snapshot === 'string' ? snapshot : undefined, { allocConf, capGib }),
    ),
  );
  // Lint: the parser's WebAssembly loads in the background; diagnostics start once it has.
  const docs = (id: string) => vscode.Uri.joinPath(context.extensionUri, 'docs', 'rules', `${id}.md`);
  void (lintParser ??= PythonParser.load(join(context.extensionPath, 'dist'))).then(
    (parser) => {
      const lint = new LintDiagnostics(parser, docs, log, runDiagnostics);
      context.subscriptions.push(
        lint,
        vscode.languages.registerCodeActionsProvider([{ language: 'python' }], new LintCodeActions(lint), {
          providedCodeActionKinds: LintCodeActions.kinds,
        }),
        cmd(CommandId.LintWorkspace, () => lintWorkspaceCommand(parser, lint, log)),
      );
    },
    (e: Error) => log.error(`lint is off: the Python parser did not load: ${e.message}`),
  );
  putCliOnTerminalPath(context, log);
  log.info(`Headroom ${context.extension.packageJSON.version as string} activated`);
}

export function deactivate(): void {}

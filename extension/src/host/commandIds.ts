/** Command ids, in sync with package.json's `contributes.commands`. */
export const enum CommandId {
  /** {@link openSnapshotCommand} */
  OpenSnapshot = 'headroom.openSnapshot',
  /** {@link runFileCommand} */
  RunFile = 'headroom.runFile',
  /** {@link runTorchrunCommand} */
  RunTorchrun = 'headroom.runTorchrun',
  /** {@link RunController.capture} */
  CaptureSnapshot = 'headroom.captureSnapshot',
  /** {@link RunController.stop} */
  StopRun = 'headroom.stopRun',
  /** {@link openRunCommand} */
  OpenRun = 'headroom.openRun',
  /** {@link MemoryView.toggle} */
  ToggleAnnotations = 'headroom.toggleAnnotations',
  /** {@link showMemoryAtCommand} */
  ShowMemoryAt = 'headroom.showMemoryAt',
  /** {@link selectDeviceCommand} */
  SelectDevice = 'headroom.selectDevice',
  /** {@link compareCommand} */
  CompareSnapshots = 'headroom.compareSnapshots',
  /** {@link showSummaryPanel} */
  ShowSummary = 'headroom.showSummary',
  /** {@link TimelinePanel.show} */
  ShowTimeline = 'headroom.showTimeline',
  /** {@link FlamePanel.show} (with an event index: at that instant) */
  ShowFlameGraph = 'headroom.showFlameGraph',
  /** {@link rerunWithCommand} (a remedy's button; not in the palette) */
  RerunWith = 'headroom.rerunWith',
  /** {@link OomExplanations.explain} */
  ExplainOom = 'headroom.explainOom',
  /** {@link GpusPage.show} */
  ShowGpus = 'headroom.showGpus',
  /** {@link lintWorkspaceCommand} */
  LintWorkspace = 'headroom.lintWorkspace',
  /** {@link MemoryHover.toggleLibrary} (a hover's link; not in the palette) */
  ToggleHoverLibraryFrames = 'headroom.toggleHoverLibraryFrames',
  OpenBreakdownFrame = 'headroom.openBreakdownFrame',
  /** {@link showAssistantSummary} */
  ShowAssistantSummary = 'headroom.showAssistantSummary',
  /** Run after a lint quick fix's edit (LintCodeActions); does nothing: it completes the walkthrough's step. */
  QuickFixApplied = 'headroom.quickFixApplied',
}

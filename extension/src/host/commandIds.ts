/** Command ids, in sync with package.json's `contributes.commands`. */
export const enum CommandId {
  /** {@link openSnapshotCommand} */
  OpenSnapshot = 'headroom.openSnapshot',
}

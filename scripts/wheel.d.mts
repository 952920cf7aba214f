export const DIST_NAME: string;
export function agentVersion(): string;
/** Writes the wheel into outDir (default dist/) and returns its path. */
export function buildWheel(outDir?: string): string;

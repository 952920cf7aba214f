export const DEMO_FILES: Record<string, string>;
/** Stages and packs the CLI's npm package; returns the tarball's path. */
export function packNpm(outDir?: string): string;

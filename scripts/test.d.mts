export const LAYERS: Record<'unit' | 'native' | 'agent' | 'gpu' | 'e2e', { dir: string; addon: boolean; installs: string }>;
export function parseArgs(argv: string[]): { layers: string[]; pattern: string | undefined };

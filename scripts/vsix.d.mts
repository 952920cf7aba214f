export function packageVsix(opts: { out: string; extra?: string[]; production?: boolean }): string;
